"use client";

import { type KeyboardEvent, useEffect, useRef, useState } from "react";
import { courtLabel, DOCUMENT_TYPE_LABELS, nameLabel, subtypeLabel, typeLabel } from "../lib/format";
import { qualifiedKindLabel } from "../lib/precedents";
import type { FacetField, Facets } from "../lib/types";
import type { FacetKey, SearchState } from "../lib/urlState";

export interface FacetLabels {
  document_type: Record<string, string>;
  court: Record<string, string>;
  document_subtype?: Record<string, string>;
}

/** What a filter changes: one facet's ticked values, a date or the cited law; applied at once by the page. */
export type FilterChange =
  | { field: FacetKey; values: string[] }
  | { field: "from" | "to" | "citedLaw"; value: string };

interface Props {
  state: SearchState;
  facets: Facets;
  /** Labels the results carried for codes (court "tjsp" -> "TJSP", subtype "resolucao" -> "Resolução"). */
  labels: FacetLabels;
  onChange: (change: FilterChange) => void;
  onClear: () => void;
}

export interface Option {
  value: string;
  label: string;
  count?: number;
}

/** The facet's values with their counts, plus the selected values even when this search did not count them. */
export function facetOptions(
  counts: Record<string, number> | undefined,
  selected: string | readonly string[],
  label: (code: string) => string,
  always: string[] = [],
): Option[] {
  const options = new Map<string, Option>();
  for (const [value, count] of Object.entries(counts ?? {}).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))) {
    options.set(value, { value, label: label(value), count });
  }
  for (const value of [...(typeof selected === "string" ? [selected] : selected), ...always]) {
    if (value && !options.has(value)) options.set(value, { value, label: label(value) });
  }
  return [...options.values()];
}

/** Values shown before "Mostrar todos": a long list of relators would push the dates off the screen. */
export const SHOWN = 6;

interface GroupProps {
  id: string;
  legend: string;
  selected: readonly string[];
  options: Option[];
  onChange: (values: string[]) => void;
}

/** One facet as checkboxes: any of the ticked values (a checkbox, unlike a closed select, never changes on an arrow). */
export function FacetGroup({ id, legend, selected, options, onChange }: GroupProps) {
  const [all, setAll] = useState(false);
  if (options.length === 0) return null;
  // The ticked values always show, whatever their rank.
  const visible = all ? options : options.filter((o, i) => i < SHOWN || selected.includes(o.value));
  const toggle = (value: string, on: boolean) =>
    onChange(on ? [...selected, value] : selected.filter((v) => v !== value));
  return (
    <fieldset className="facet" id={id}>
      <legend>{legend}</legend>
      <ul>
        {visible.map((option, i) => {
          const inputId = `${id}-${i}`;
          return (
            <li key={option.value}>
              <input
                type="checkbox"
                id={inputId}
                value={option.value}
                checked={selected.includes(option.value)}
                onChange={(e) => toggle(option.value, e.target.checked)}
              />
              <label htmlFor={inputId}>
                <span className="facet-label">{option.label}</span>
                {option.count !== undefined && (
                  <span className="facet-count">
                    {" "}
                    ({option.count}
                    <span className="visually-hidden"> {option.count === 1 ? "resultado" : "resultados"}</span>)
                  </span>
                )}
              </label>
            </li>
          );
        })}
      </ul>
      {options.length > visible.length && (
        <button type="button" className="link-button" aria-controls={id} onClick={() => setAll(true)}>
          Mostrar todos ({options.length})
        </button>
      )}
    </fieldset>
  );
}

/** A date that is whole (a four-digit year from 1800 on), or none: a year typed digit by digit is not yet a date. */
export function settledDate(value: string): boolean {
  if (value === "") return true;
  const match = /^(\d{4})-\d{2}-\d{2}$/.exec(value);
  return match !== null && Number(match[1]) >= 1800;
}

const DATE_SETTLE_MS = 700;

function DateField({ id, label, value, onApply }: { id: string; label: string; value: string; onApply: (v: string) => void }) {
  const [draft, setDraft] = useState(value);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(() => setDraft(value), [value]);
  useEffect(() => () => {
    if (timer.current) clearTimeout(timer.current);
  }, []);
  const apply = (next: string) => {
    if (timer.current) clearTimeout(timer.current);
    if (next !== value && settledDate(next)) onApply(next);
  };
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        type="date"
        min="1800-01-01"
        value={draft}
        onChange={(e) => {
          const next = e.target.value;
          setDraft(next);
          if (timer.current) clearTimeout(timer.current);
          // Applied once the date stops changing (a picked date, a year typed out), at once on leaving the field.
          timer.current = setTimeout(() => apply(next), DATE_SETTLE_MS);
        }}
        onBlur={() => apply(draft)}
      />
    </div>
  );
}

function CitedLawField({ value, onApply }: { value: string; onApply: (v: string) => void }) {
  const [draft, setDraft] = useState(value);
  useEffect(() => setDraft(value), [value]);
  const apply = () => {
    if (draft.trim() !== value.trim()) onApply(draft.trim());
  };
  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === "Enter") {
      event.preventDefault();
      apply();
    }
  };
  return (
    <div className="field">
      <label htmlFor="filtro-lei">Lei citada</label>
      <input
        id="filtro-lei"
        type="text"
        placeholder="ex.: Lei 8.078/1990, art. 14"
        aria-describedby="filtro-lei-dica"
        value={draft}
        onChange={(e) => setDraft(e.target.value)}
        onBlur={apply}
        onKeyDown={onKeyDown}
      />
      <span id="filtro-lei-dica" className="hint">
        Aplicada com Enter ou ao sair do campo.
      </span>
    </div>
  );
}

const GROUPS: { key: FacetKey; facet: FacetField; id: string; legend: string }[] = [
  { key: "type", facet: "document_type", id: "filtro-tipo", legend: "Tipo de documento" },
  { key: "subtype", facet: "document_subtype", id: "filtro-subtipo", legend: "Espécie" },
  { key: "court", facet: "court", id: "filtro-tribunal", legend: "Tribunal ou origem" },
  { key: "proceduralClass", facet: "procedural_class", id: "filtro-classe", legend: "Classe processual" },
  { key: "relator", facet: "relator", id: "filtro-relator", legend: "Relator(a) ou juiz(a)" },
  { key: "judgingBody", facet: "judging_body", id: "filtro-orgao", legend: "Órgão julgador" },
  { key: "qualified", facet: "qualified_precedent", id: "filtro-precedente", legend: "Precedente qualificado" },
];

/** Every filter applies on change: a ticked value, a settled date, the cited law on Enter or leaving the field. */
export function Filters({ state, facets, labels, onChange, onClear }: Props) {
  const labelOf: Record<FacetKey, (code: string) => string> = {
    type: (code) => typeLabel(code, labels.document_type),
    subtype: (code) => subtypeLabel(code, labels.document_subtype),
    court: (code) => courtLabel(code, labels.court),
    proceduralClass: nameLabel,
    relator: (name) => name,
    judgingBody: nameLabel,
    qualified: qualifiedKindLabel,
  };
  const searched = Object.keys(facets).length > 0;
  const active = GROUPS.some(({ key }) => state[key].length > 0) || state.from || state.to || state.citedLaw;
  return (
    <div className="filters">
      {GROUPS.map(({ key, facet, id, legend }) => (
        <FacetGroup
          key={key}
          id={id}
          legend={legend}
          selected={state[key]}
          // Before any search every document type is offered (without counts); afterwards what the search found.
          options={facetOptions(
            facets[facet],
            state[key],
            labelOf[key],
            key === "type" && !searched ? Object.keys(DOCUMENT_TYPE_LABELS) : [],
          )}
          onChange={(values) => onChange({ field: key, values })}
        />
      ))}
      <fieldset className="facet dates">
        <legend>Data</legend>
        <DateField id="filtro-de" label="De" value={state.from} onApply={(value) => onChange({ field: "from", value })} />
        <DateField id="filtro-ate" label="Até" value={state.to} onApply={(value) => onChange({ field: "to", value })} />
      </fieldset>
      <CitedLawField value={state.citedLaw} onApply={(value) => onChange({ field: "citedLaw", value })} />
      {active && (
        <button type="button" className="link-button clear-filters" onClick={onClear}>
          Limpar filtros
        </button>
      )}
    </div>
  );
}
