"use client";

import { type FormEvent, type Ref, useCallback, useEffect, useRef, useState } from "react";
import { worksCount } from "../lib/format";
import { errorMessage } from "../lib/problem";
import type { Facets, SearchRequestBody, SearchResponse, SearchResult } from "../lib/types";
import { apiFilters, paramsFromState, type SearchState, stateFromParams } from "../lib/urlState";
import { Filters } from "./Filters";
import { ResultCard } from "./ResultCard";

const PAGE = 5;
const MAX_RESULTS = 50;

export type Phase = "idle" | "loading" | "done" | "error";

interface Props {
  initial: SearchState;
}

export const NO_STRONG_MATCH =
  "Nada claramente relevante foi encontrado para esta consulta. Os resultados abaixo são apenas os mais próximos.";

/** The live region's line: works found (the API's total), not passages. */
export function statusMessage(phase: Phase, total: number, shown: number): string {
  if (phase === "loading") return "Pesquisando…";
  if (phase !== "done") return "";
  if (shown === 0) return "Nenhuma decisão ou documento encontrado. Tente outras palavras ou remova filtros.";
  const works = Math.max(total, shown);
  return `${worksCount(works)} ${works === 1 ? "encontrado" : "encontrados"}.`;
}

interface ResultsProps {
  results: SearchResult[];
  noStrongMatch: boolean;
  stale?: boolean;
  listRef?: Ref<HTMLOListElement>;
  /** "Mostrar mais resultados", when more works are there to show. */
  onMore?: () => void;
}

/** The result cards; above them, when nothing reached "provável", the plain warning, and every card weak. */
export function Results({ results, noStrongMatch, stale = false, listRef, onMore }: ResultsProps) {
  if (results.length === 0) return null;
  return (
    <section aria-label="Resultados" className={stale ? "results stale" : "results"}>
      {noStrongMatch && (
        <p className="no-strong-match" role="note">
          {NO_STRONG_MATCH}
        </p>
      )}
      <ol ref={listRef} className="result-list">
        {results.map((result, index) => (
          <li key={`${result.work_id || result.document_id}-${result.char_start ?? index}-${index}`}>
            <ResultCard result={result} position={index + 1} weak={noStrongMatch} />
          </li>
        ))}
      </ol>
      {onMore && (
        <button type="button" className="more" onClick={onMore}>
          Mostrar mais resultados
        </button>
      )}
    </section>
  );
}

/** The API's problem document (RFC 9457): its detail, for the person. */
const detailOf = errorMessage;

export function SearchPage({ initial }: Props) {
  const [state, setState] = useState<SearchState>(initial);
  const [results, setResults] = useState<SearchResult[]>([]);
  const [total, setTotal] = useState(0);
  const [noStrongMatch, setNoStrongMatch] = useState(false);
  const [facets, setFacets] = useState<Facets>({});
  const [phase, setPhase] = useState<Phase>("idle");
  const [error, setError] = useState("");
  const [searched, setSearched] = useState<SearchState | null>(null);
  const [topK, setTopK] = useState(PAGE);
  const [labels, setLabels] = useState({
    document_type: {} as Record<string, string>,
    court: {} as Record<string, string>,
    document_subtype: {} as Record<string, string>,
  });
  const controller = useRef<AbortController | null>(null);
  const firstNew = useRef<number | null>(null);
  const listRef = useRef<HTMLOListElement>(null);

  const run = useCallback(async (next: SearchState, k: number) => {
    if (!next.q.trim()) return;
    controller.current?.abort();
    const abort = new AbortController();
    controller.current = abort;
    setPhase("loading");
    setError("");
    try {
      const response = await fetch("/api/search", {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json" },
        body: JSON.stringify({ query: next.q.trim(), filters: apiFilters(next), top_k: k } satisfies SearchRequestBody),
        signal: abort.signal,
      });
      if (response.status === 401) {
        window.location.assign(`/login?next=${encodeURIComponent(window.location.pathname + window.location.search)}`);
        return;
      }
      if (!response.ok) throw new Error(await detailOf(response));
      const body = (await response.json()) as SearchResponse;
      setResults(body.results);
      setTotal(body.total ?? body.results.length);
      setNoStrongMatch(body.no_strong_match === true);
      setFacets(body.facets ?? {});
      setLabels((old) => {
        const merged = {
          document_type: { ...old.document_type },
          court: { ...old.court },
          document_subtype: { ...old.document_subtype },
        };
        for (const r of body.results) {
          if (r.document_type && r.document_type_label) merged.document_type[r.document_type] = r.document_type_label;
          if (r.court && r.court_label) merged.court[r.court] = r.court_label;
          if (r.document_subtype && r.document_subtype_label) {
            merged.document_subtype[r.document_subtype] = r.document_subtype_label;
          }
        }
        return merged;
      });
      setSearched(next);
      setTopK(k);
      setPhase("done");
    } catch (err) {
      if (abort.signal.aborted) return;
      setError(err instanceof Error ? err.message : String(err));
      setPhase("error");
    }
  }, []);

  // A shared link runs its search on arrival; back/forward restore the search of that URL.
  useEffect(() => {
    if (initial.q) void run(initial, PAGE);
    const onPop = () => {
      const restored = stateFromParams(new URLSearchParams(window.location.search));
      setState(restored);
      if (restored.q) void run(restored, PAGE);
      else {
        setResults([]);
        setTotal(0);
        setNoStrongMatch(false);
        setSearched(null);
        setPhase("idle");
      }
    };
    window.addEventListener("popstate", onPop);
    return () => window.removeEventListener("popstate", onPop);
  }, [initial, run]);

  // After "mais resultados", the first new result takes the focus (keyboard users continue from there).
  useEffect(() => {
    if (phase !== "done" || firstNew.current === null) return;
    const link = listRef.current?.querySelectorAll<HTMLAnchorElement>("a.open-document")[firstNew.current];
    firstNew.current = null;
    link?.focus();
  }, [phase, results]);

  const submit = (next: SearchState) => {
    const query = paramsFromState(next).toString();
    window.history.pushState(null, "", query ? `/?${query}` : "/");
    void run(next, PAGE);
  };

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    submit(state);
  };

  const onFilter = (field: keyof SearchState, value: string, applyNow: boolean) => {
    const next = { ...state, [field]: value };
    setState(next);
    if (applyNow && next.q.trim()) submit(next);
  };

  const more = () => {
    if (!searched) return;
    firstNew.current = results.length;
    void run(searched, Math.min(topK + PAGE, MAX_RESULTS));
  };

  const message = statusMessage(phase, total, results.length);
  const hasMore = phase === "done" && results.length >= topK && results.length < total && topK < MAX_RESULTS;

  return (
    <div className="search-page">
      <form role="search" className="search-form" onSubmit={onSubmit} aria-label="Pesquisa">
        <div className="query-row">
          <label htmlFor="consulta" className="visually-hidden">
            O que você procura?
          </label>
          <input
            id="consulta"
            name="q"
            type="search"
            autoFocus
            autoComplete="off"
            maxLength={2000}
            placeholder="Descreva o que procura, ex.: responsabilidade solidária do tomador de serviços"
            value={state.q}
            onChange={(e) => setState({ ...state, q: e.target.value })}
          />
          <button type="submit">Pesquisar</button>
        </div>
        <Filters state={state} facets={facets} labels={labels} onChange={onFilter} />
      </form>

      <p className="status" role="status" aria-live="polite" aria-busy={phase === "loading"}>
        {message}
      </p>
      {phase === "error" && (
        <div className="error" role="alert">
          <p>Não foi possível pesquisar agora ({error}).</p>
          <button type="button" onClick={() => searched ? void run(searched, topK) : submit(state)}>
            Tentar de novo
          </button>
        </div>
      )}

      <Results
        results={results}
        noStrongMatch={noStrongMatch}
        stale={phase === "loading"}
        listRef={listRef}
        onMore={hasMore ? more : undefined}
      />
    </div>
  );
}
