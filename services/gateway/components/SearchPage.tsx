"use client";

import { type FormEvent, type KeyboardEvent, type MouseEvent, type Ref, useCallback, useEffect, useRef, useState } from "react";
import { callApi } from "../lib/apiClient";
import { worksCount } from "../lib/format";
import { judgmentBody, judgmentsByPassage, judgmentsPath, normaliseQuery } from "../lib/judgments";
import { errorMessage } from "../lib/problem";
import type {
  Facets,
  Judgment,
  JudgmentList,
  SearchRequestBody,
  SearchResponse,
  SearchResult,
  SearchSort,
  SimilarRequestBody,
  SimilarSource,
} from "../lib/types";
import {
  activeFilterCount,
  apiFilters,
  EMPTY_STATE,
  offsetOf,
  PAGE_SIZE,
  pageCount,
  paramsFromState,
  type SearchState,
  stateFromParams,
} from "../lib/urlState";
import { type FacetLabels, type FilterChange, Filters } from "./Filters";
import { ResultCard } from "./ResultCard";
import { SaveSearchButton } from "./SaveSearchButton";

export type Phase = "idle" | "loading" | "done" | "error";

interface Props {
  initial: SearchState;
  /** Who is signed in: the page reads back this person's judgments only (an administrator could read all). */
  person?: string;
}

export const NO_STRONG_MATCH =
  "Nada claramente relevante foi encontrado para esta consulta. Os resultados abaixo são apenas os mais próximos.";
export const VAGUE_QUERY = "Uma palavra só não diz o assunto: descreva a questão com mais palavras.";
export const NO_CLOSE_PASSAGE =
  "Nenhum trecho muito parecido foi encontrado. Os resultados abaixo são apenas os mais próximos.";

/** The line above a "Mais como este" list: what it is near, and that the source decision is left out. */
export function similarLine(source: SimilarSource | null): string {
  if (!source) return "Trechos parecidos com o trecho escolhido, de outras decisões e documentos.";
  const name = source.citation || source.title || "documento sem título";
  return `Trechos parecidos com o trecho da página ${source.page_number} de “${name}”, de outras decisões e documentos.`;
}

/** The request a search state makes: POST /search, or POST /search/similar for "Mais como este". */
export function searchRequest(state: SearchState): { path: string; body: SearchRequestBody | SimilarRequestBody } {
  const common = { filters: apiFilters(state), top_k: PAGE_SIZE, offset: offsetOf(state), sort: state.sort };
  if (state.similar !== null) return { path: "/search/similar", body: { passage_id: state.similar, ...common } };
  return { path: "/search", body: { query: state.q.trim(), ...common } };
}

/** The live region's line: works found (the API's total), not passages, and which of them this page shows. */
export function statusMessage(phase: Phase, total: number, shown: number, offset = 0): string {
  if (phase === "loading") return "Pesquisando…";
  if (phase !== "done") return "";
  if (shown === 0) {
    return offset > 0
      ? "Não há mais resultados nesta página."
      : "Nenhuma decisão ou documento encontrado. Tente outras palavras ou remova filtros.";
  }
  const works = Math.max(total, offset + shown);
  const found = `${worksCount(works)} ${works === 1 ? "encontrado" : "encontrados"}`;
  if (works <= shown && offset === 0) return `${found}.`;
  return shown === 1 ? `${found}; mostrando o ${offset + 1}º.` : `${found}; mostrando ${offset + 1}–${offset + shown}.`;
}

/** The page numbers a pager offers: the first, the last and two around the current one; null is a gap. */
export function pagerPages(current: number, last: number): (number | null)[] {
  const wanted = new Set([1, last, current - 2, current - 1, current, current + 1, current + 2]);
  const pages = [...wanted].filter((p) => p >= 1 && p <= last).sort((a, b) => a - b);
  const out: (number | null)[] = [];
  for (const page of pages) {
    const previous = out[out.length - 1];
    if (typeof previous === "number" && page - previous > 1) out.push(null);
    out.push(page);
  }
  return out;
}

export function hrefOf(state: SearchState): string {
  const query = paramsFromState(state).toString();
  return query ? `/?${query}` : "/";
}

interface PagerProps {
  state: SearchState;
  total: number;
  onPage: (page: number) => void;
}

/** Pages of PAGE_SIZE works as links (a page can be opened in a tab, shared, bookmarked). */
export function Pager({ state, total, onPage }: PagerProps) {
  const last = pageCount(total);
  if (last <= 1) return null;
  const current = Math.min(state.page, last);
  const link = (page: number, text: string, rel?: string) => (
    <a
      href={hrefOf({ ...state, page })}
      rel={rel}
      onClick={(event: MouseEvent<HTMLAnchorElement>) => {
        if (event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0) return; // a new tab: the link's own
        event.preventDefault();
        onPage(page);
      }}
    >
      {text}
    </a>
  );
  return (
    <nav className="pager" aria-label="Páginas de resultados">
      <ul>
        {current > 1 && <li className="pager-step">{link(current - 1, "‹ Anterior", "prev")}</li>}
        {pagerPages(current, last).map((page, i) =>
          page === null ? (
            <li key={`gap-${i}`} className="pager-gap" aria-hidden="true">
              …
            </li>
          ) : page === current ? (
            <li key={page}>
              <span aria-current="page" className="pager-current">
                <span className="visually-hidden">Página </span>
                {page}
              </span>
            </li>
          ) : (
            <li key={page}>{link(page, String(page))}</li>
          ),
        )}
        {current < last && <li className="pager-step">{link(current + 1, "Próxima ›", "next")}</li>}
      </ul>
    </nav>
  );
}

const ARROWS = new Set(["ArrowUp", "ArrowDown", "ArrowLeft", "ArrowRight", "Home", "End", "PageUp", "PageDown"]);

/**
 * The order of the results. A closed select changes its value on an arrow key (Chromium on Linux and Windows):
 * such a change is only kept, and applied by Enter or on leaving the field, so browsing the options runs no search.
 */
export function SortSelect({ value, onApply }: { value: SearchSort; onApply: (sort: SearchSort) => void }) {
  const [draft, setDraft] = useState<SearchSort>(value);
  const keyed = useRef(false);
  useEffect(() => setDraft(value), [value]);
  const apply = (next: SearchSort) => {
    if (next !== value) onApply(next);
  };
  return (
    <div className="sort">
      <label htmlFor="ordem">Ordenar por</label>
      <select
        id="ordem"
        value={draft}
        onKeyDown={(event: KeyboardEvent<HTMLSelectElement>) => {
          if (ARROWS.has(event.key)) keyed.current = true;
          if (event.key === "Enter") apply(draft);
        }}
        onChange={(event) => {
          const next = event.target.value === "date" ? "date" : "relevance";
          setDraft(next);
          if (keyed.current) keyed.current = false;
          else apply(next);
        }}
        onBlur={() => apply(draft)}
      >
        <option value="relevance">Relevância</option>
        <option value="date">Data (mais recentes)</option>
      </select>
    </div>
  );
}

interface ResultsProps {
  results: SearchResult[];
  noStrongMatch: boolean;
  /** A "Mais como este" list: its own warning when nothing is close. */
  similar?: boolean;
  /** The person's judgments of the query shown, by passage; with onJudge every card offers to judge. */
  judgments?: Map<number, Judgment>;
  onJudge?: (result: SearchResult, position: number, relevant: boolean, note: string | null) => Promise<void>;
  /** "Mais como este" of a card: its URL, and what a click does. */
  similarHref?: (result: SearchResult) => string;
  onSimilar?: (result: SearchResult) => void;
  vague?: boolean;
  stale?: boolean;
  listRef?: Ref<HTMLOListElement>;
  /** Position of the first card (offset + 1 on later pages). */
  first?: number;
}

/** The result cards; above them, when nothing reached "provável", the plain warning, and every card weak. */
export function Results({
  results,
  noStrongMatch,
  similar = false,
  vague = false,
  stale = false,
  listRef,
  first = 1,
  judgments,
  onJudge,
  similarHref,
  onSimilar,
}: ResultsProps) {
  if (results.length === 0) return null;
  return (
    <section aria-label="Resultados" className={stale ? "results stale" : "results"}>
      {(noStrongMatch || vague) && (
        <p className="no-strong-match" role="note">
          {vague ? VAGUE_QUERY : similar ? NO_CLOSE_PASSAGE : NO_STRONG_MATCH}
        </p>
      )}
      <ol ref={listRef} className="result-list" start={first}>
        {results.map((result, index) => (
          <li key={`${result.work_id || result.document_id}-${result.char_start ?? index}-${index}`}>
            <ResultCard
              result={result}
              position={first + index}
              weak={noStrongMatch}
              judgment={judgments?.get(result.passage_id ?? 0) ?? null}
              onJudge={onJudge ? (relevant, note) => onJudge(result, first + index, relevant, note) : undefined}
              similarHref={similarHref?.(result)}
              onSimilar={onSimilar ? () => onSimilar(result) : undefined}
            />
          </li>
        ))}
      </ol>
    </section>
  );
}

/** The API's problem document (RFC 9457): its detail, for the person. */
const detailOf = errorMessage;

function mergeLabels(old: FacetLabels, results: SearchResult[]): FacetLabels {
  const merged = {
    document_type: { ...old.document_type },
    court: { ...old.court },
    document_subtype: { ...old.document_subtype },
  };
  for (const r of results) {
    if (r.document_type && r.document_type_label) merged.document_type[r.document_type] = r.document_type_label;
    if (r.court && r.court_label) merged.court[r.court] = r.court_label;
    if (r.document_subtype && r.document_subtype_label) merged.document_subtype[r.document_subtype] = r.document_subtype_label;
  }
  return merged;
}

export function SearchPage({ initial, person = "" }: Props) {
  const [state, setState] = useState<SearchState>(initial);
  const [results, setResults] = useState<SearchResult[]>([]);
  const [total, setTotal] = useState(0);
  const [noStrongMatch, setNoStrongMatch] = useState(false);
  const [vague, setVague] = useState(false);
  const [facets, setFacets] = useState<Facets>({});
  const [phase, setPhase] = useState<Phase>("idle");
  const [error, setError] = useState("");
  const [searched, setSearched] = useState<SearchState | null>(null);
  const [filtersOpen, setFiltersOpen] = useState(false);
  const [labels, setLabels] = useState<FacetLabels>({ document_type: {}, court: {}, document_subtype: {} });
  const [similarTo, setSimilarTo] = useState<SimilarSource | null>(null);
  const [judgments, setJudgments] = useState<Map<number, Judgment>>(new Map());
  // The query whose judgments are loaded: read once per search, not again for each page or filter.
  const judgedKey = useRef<string | null>(null);
  const similarRef = useRef<HTMLParagraphElement>(null);
  const focusSimilar = useRef(false);
  const controller = useRef<AbortController | null>(null);
  const focusResults = useRef(false);
  const listRef = useRef<HTMLOListElement>(null);
  const toggleRef = useRef<HTMLButtonElement>(null);
  const panelRef = useRef<HTMLDivElement>(null);

  const clear = useCallback(() => {
    controller.current?.abort();
    setResults([]);
    setTotal(0);
    setNoStrongMatch(false);
    setVague(false);
    setFacets({});
    setSearched(null);
    setSimilarTo(null);
    setError("");
    setPhase("idle");
  }, []);

  const loadJudgments = useCallback(
    async (query: string) => {
      const key = normaliseQuery(query);
      if (!key || judgedKey.current === key) return;
      judgedKey.current = key;
      setJudgments(new Map()); // another query's judgments never show on this one's results
      try {
        const list = await callApi<JudgmentList>(judgmentsPath(person, query));
        if (judgedKey.current === key) setJudgments(judgmentsByPassage(list, query, person || undefined));
      } catch {
        if (judgedKey.current === key) judgedKey.current = null; // tried again at the next search
      }
    },
    [person],
  );

  const run = useCallback(
    async (next: SearchState) => {
      if (!next.q.trim() && next.similar === null) {
        clear();
        return;
      }
      controller.current?.abort();
      const abort = new AbortController();
      controller.current = abort;
      setPhase("loading");
      setError("");
      try {
        const { path, body } = searchRequest(next);
        if (next.similar === null) void loadJudgments(next.q);
        const response = await fetch(`/api${path}`, {
          method: "POST",
          headers: { "content-type": "application/json", accept: "application/json" },
          body: JSON.stringify(body),
          signal: abort.signal,
        });
        if (response.status === 401) {
          window.location.assign(`/login?next=${encodeURIComponent(window.location.pathname + window.location.search)}`);
          return;
        }
        if (!response.ok) throw new Error(await detailOf(response));
        const answer = (await response.json()) as SearchResponse;
        setResults(answer.results);
        setTotal(answer.total ?? answer.results.length);
        setNoStrongMatch(answer.no_strong_match === true);
        setVague(answer.vague_query === true);
        setFacets(answer.facets ?? {});
        setLabels((old) => mergeLabels(old, answer.results));
        setSimilarTo(answer.similar_to ?? null);
        setSearched(next);
        setPhase("done");
      } catch (err) {
        if (abort.signal.aborted) return;
        setError(err instanceof Error ? err.message : String(err));
        setPhase("error");
      }
    },
    [clear, loadJudgments],
  );

  // A shared link runs its search on arrival; back/forward restore the search of that URL.
  useEffect(() => {
    if (initial.q || initial.similar !== null) void run(initial);
    const onPop = () => {
      const restored = stateFromParams(new URLSearchParams(window.location.search));
      setState(restored);
      void run(restored);
    };
    window.addEventListener("popstate", onPop);
    return () => window.removeEventListener("popstate", onPop);
  }, [initial, run]);

  // After a change of page, the first result's heading takes the focus (keyboard users continue from there).
  useEffect(() => {
    if (phase === "done" && focusSimilar.current) {
      focusSimilar.current = false;
      focusResults.current = false;
      similarRef.current?.focus();
      similarRef.current?.scrollIntoView({ block: "start" });
      return;
    }
    if (phase !== "done" || !focusResults.current) return;
    focusResults.current = false;
    const heading = listRef.current?.querySelector<HTMLElement>(".result-title");
    heading?.focus();
    heading?.scrollIntoView({ block: "start" });
  }, [phase, results]);

  // The folded filters (narrow screens) close on Escape and give the focus back to their button.
  useEffect(() => {
    if (!filtersOpen) return;
    panelRef.current?.querySelector<HTMLElement>("h2")?.focus();
    const onKey = (event: globalThis.KeyboardEvent) => {
      if (event.key !== "Escape") return;
      setFiltersOpen(false);
      toggleRef.current?.focus();
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [filtersOpen]);

  const go = (next: SearchState) => {
    setState(next);
    const href = hrefOf(next);
    if (href !== window.location.pathname + window.location.search) window.history.pushState(null, "", href);
    void run(next);
  };

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    go({ ...state, page: 1, similar: null });
  };

  // "Mais como este": the passages near this one, under the filters of the list shown (the query stays in the URL,
  // so Back returns to its results).
  const similarState = (result: SearchResult): SearchState => ({
    ...(searched ?? state),
    similar: result.passage_id ?? null,
    page: 1,
  });
  const onSimilar = (result: SearchResult) => {
    focusSimilar.current = true;
    go(similarState(result));
  };

  const onJudge = async (result: SearchResult, position: number, relevant: boolean, note: string | null) => {
    const list = searched ?? state;
    const judgedList = { query: list.q, filters: apiFilters(list), sort: list.sort };
    const body = judgmentBody(judgedList, result, relevant, note, position);
    const saved = await callApi<Judgment>("/judgments", { method: "POST", body: JSON.stringify(body) });
    if (normaliseQuery(list.q) !== judgedKey.current) return; // another query since: its judgments are loading
    setJudgments((old) => new Map(old).set(saved.passage_id, saved));
  };

  // Every filter applies on change, back to the first page; without a query it is only kept (and in the URL).
  const onFilter = (change: FilterChange) => {
    const next: SearchState =
      "values" in change ? { ...state, [change.field]: change.values, page: 1 } : { ...state, [change.field]: change.value, page: 1 };
    go(next);
  };

  const onClearFilters = () => {
    const next = { ...EMPTY_STATE, q: state.q, sort: state.sort, similar: state.similar };
    go(next);
  };

  const onPage = (page: number) => {
    focusResults.current = true;
    go({ ...(searched ?? state), page }); // the page of the search shown, not of a query typed since
  };

  const closeFilters = () => {
    setFiltersOpen(false);
    toggleRef.current?.focus();
  };

  const shownState = searched ?? state;
  const offset = searched ? offsetOf(searched) : 0;
  const message = statusMessage(phase, total, results.length, offset);
  const count = activeFilterCount(state);

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
            title='Também os operadores dos tribunais: "frase exata", OU, NÃO, ADJ2, PROX3, MESMO e campos como ementa:, relator:, tribunal:'
            value={state.q}
            onChange={(e) => setState({ ...state, q: e.target.value })}
          />
          <button type="submit">Pesquisar</button>
        </div>
      </form>

      <div className="toolbar">
        <p className="status" role="status" aria-live="polite" aria-busy={phase === "loading"}>
          {message}
        </p>
        <button
          type="button"
          ref={toggleRef}
          className="filters-toggle"
          aria-expanded={filtersOpen}
          aria-controls="painel-filtros"
          onClick={() => setFiltersOpen(!filtersOpen)}
        >
          Filtros{count > 0 ? ` (${count})` : ""}
        </button>
        <SortSelect value={state.sort} onApply={(sort) => go({ ...state, sort, page: 1 })} />
        {phase === "done" && searched && searched.similar === null && searched.q.trim() && (
          <SaveSearchButton key={hrefOf({ ...searched, page: 1 })} query={searched.q} filters={apiFilters(searched)} sort={searched.sort} />
        )}
      </div>

      <div className="search-body">
        <div className="search-main">
          {phase === "error" && (
            <div className="error" role="alert">
              <p>Não foi possível pesquisar agora ({error}).</p>
              <button type="button" onClick={() => void run(searched ?? state)}>
                Tentar de novo
              </button>
            </div>
          )}
          {searched?.similar != null && phase !== "error" && (
            <p className="similar-to" ref={similarRef} tabIndex={-1}>
              {similarLine(similarTo)}
            </p>
          )}
          <Results
            results={results}
            noStrongMatch={noStrongMatch}
            similar={searched?.similar != null}
            judgments={judgments}
            onJudge={searched && searched.similar === null && searched.q.trim() ? onJudge : undefined}
            similarHref={(result) => hrefOf(similarState(result))}
            onSimilar={onSimilar}
            vague={vague}
            stale={phase === "loading"}
            listRef={listRef}
            first={offset + 1}
          />
          {phase !== "error" && results.length > 0 && <Pager state={shownState} total={total} onPage={onPage} />}
        </div>
        <aside
          id="painel-filtros"
          ref={panelRef}
          className={filtersOpen ? "filters-panel open" : "filters-panel"}
          aria-labelledby="filtros-titulo"
        >
          <div className="filters-head">
            <h2 id="filtros-titulo" tabIndex={-1}>
              Filtros
            </h2>
            <button type="button" className="filters-close" onClick={closeFilters}>
              {phase === "done" ? `Ver ${worksCount(total)}` : "Fechar"}
            </button>
          </div>
          <Filters state={state} facets={facets} labels={labels} onChange={onFilter} onClear={onClearFilters} />
        </aside>
      </div>
    </div>
  );
}
