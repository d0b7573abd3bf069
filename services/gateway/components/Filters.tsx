import type { ChangeEvent } from "react";
import { courtLabel, DOCUMENT_TYPE_LABELS, subtypeLabel, typeLabel } from "../lib/format";
import type { Facets } from "../lib/types";
import type { SearchState } from "../lib/urlState";

interface Props {
  state: SearchState;
  facets: Facets;
  /** Labels the results carried for codes (court "tjsp" -> "TJSP", subtype "resolucao" -> "Resolução"). */
  labels: {
    document_type: Record<string, string>;
    court: Record<string, string>;
    document_subtype?: Record<string, string>;
  };
  onChange: (field: keyof SearchState, value: string, applyNow: boolean) => void;
}

interface Option {
  value: string;
  label: string;
  count?: number;
}

/** The facet's values with their counts, plus the selected value even when this search did not count it. */
export function facetOptions(
  counts: Record<string, number> | undefined,
  selected: string,
  label: (code: string) => string,
  always: string[] = [],
): Option[] {
  const options = new Map<string, Option>();
  for (const [value, count] of Object.entries(counts ?? {}).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))) {
    options.set(value, { value, label: label(value), count });
  }
  for (const value of [selected, ...always]) {
    if (value && !options.has(value)) options.set(value, { value, label: label(value) });
  }
  return [...options.values()];
}

function optionText(option: Option): string {
  return option.count === undefined ? option.label : `${option.label} (${option.count})`;
}

interface SelectProps {
  id: string;
  label: string;
  value: string;
  options: Option[];
  onChange: (value: string) => void;
}

function FacetSelect({ id, label, value, options, onChange }: SelectProps) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select id={id} value={value} onChange={(e: ChangeEvent<HTMLSelectElement>) => onChange(e.target.value)}>
        <option value="">Todos</option>
        {options.map((option) => (
          <option key={option.value} value={option.value}>
            {optionText(option)}
          </option>
        ))}
      </select>
    </div>
  );
}

export function Filters({ state, facets, labels, onChange }: Props) {
  const types = facetOptions(
    facets.document_type,
    state.type,
    (code) => typeLabel(code, labels.document_type),
    Object.keys(facets).length === 0 ? Object.keys(DOCUMENT_TYPE_LABELS) : [], // before any search: every type
  );
  const subtypes = facetOptions(facets.document_subtype, state.subtype, (code) =>
    subtypeLabel(code, labels.document_subtype),
  );
  const courts = facetOptions(facets.court, state.court, (code) => courtLabel(code, labels.court));
  const relators = facetOptions(facets.relator, state.relator, (name) => name);
  const bodies = facetOptions(facets.judging_body, state.judgingBody, (name) => name);
  return (
    <fieldset className="filters">
      <legend>Filtros</legend>
      <FacetSelect id="filtro-tipo" label="Tipo de documento" value={state.type} options={types} onChange={(v) => onChange("type", v, true)} />
      {(subtypes.length > 0 || state.subtype) && (
        <FacetSelect
          id="filtro-subtipo"
          label="Espécie"
          value={state.subtype}
          options={subtypes}
          onChange={(v) => onChange("subtype", v, true)}
        />
      )}
      <FacetSelect id="filtro-tribunal" label="Tribunal ou origem" value={state.court} options={courts} onChange={(v) => onChange("court", v, true)} />
      <div className="field">
        <label htmlFor="filtro-de">De</label>
        <input id="filtro-de" type="date" value={state.from} onChange={(e) => onChange("from", e.target.value, false)} />
      </div>
      <div className="field">
        <label htmlFor="filtro-ate">Até</label>
        <input id="filtro-ate" type="date" value={state.to} onChange={(e) => onChange("to", e.target.value, false)} />
      </div>
      {(relators.length > 0 || state.relator) && (
        <FacetSelect id="filtro-relator" label="Relator" value={state.relator} options={relators} onChange={(v) => onChange("relator", v, true)} />
      )}
      {(bodies.length > 0 || state.judgingBody) && (
        <FacetSelect
          id="filtro-orgao"
          label="Órgão julgador"
          value={state.judgingBody}
          options={bodies}
          onChange={(v) => onChange("judgingBody", v, true)}
        />
      )}
      <div className="field">
        <label htmlFor="filtro-lei">Lei citada</label>
        <input
          id="filtro-lei"
          type="text"
          placeholder="ex.: Lei 8.078/1990, art. 14"
          value={state.citedLaw}
          onChange={(e) => onChange("citedLaw", e.target.value, false)}
        />
      </div>
    </fieldset>
  );
}
