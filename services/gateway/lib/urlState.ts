// The search as it stands in the URL (?q=...&tribunal=stj&tribunal=tjsp&ordem=data&pagina=2), so a search can be
// shared and reloaded, its page and order with it.
import type { ApiFilters, SearchSort } from "./types";

/** The facets a lawyer ticks, each any of several values (the API takes a list: "STJ or TJSP"). */
export type FacetKey = "type" | "subtype" | "court" | "proceduralClass" | "relator" | "judgingBody" | "qualified";

export interface SearchState {
  q: string;
  type: string[];
  /** document_subtype codes ("resolucao", "artigo"). */
  subtype: string[];
  court: string[];
  /** Classes processuais as extracted ("Recurso Especial"). */
  proceduralClass: string[];
  relator: string[];
  judgingBody: string[];
  /** Kinds of qualified precedent ("repetitivo", "repercussao_geral"): "Precedente qualificado". */
  qualified: string[];
  from: string;
  to: string;
  citedLaw: string;
  sort: SearchSort;
  /** 1-based page of PAGE_SIZE works. */
  page: number;
  /** "Mais como este": the passage whose neighbours are listed (?similar=123), else null. */
  similar: number | null;
}

export const FACET_KEYS: FacetKey[] = [
  "type",
  "subtype",
  "court",
  "proceduralClass",
  "relator",
  "judgingBody",
  "qualified",
];
type TextKey = "q" | "from" | "to" | "citedLaw";

export const PAGE_SIZE = 10;
/** The API skips at most 1,000 works (SearchRequest.offset): the last page a search reaches. */
export const MAX_OFFSET = 1000;
export const MAX_PAGE = Math.floor(MAX_OFFSET / PAGE_SIZE) + 1;

export const EMPTY_STATE: SearchState = {
  q: "",
  type: [],
  subtype: [],
  court: [],
  proceduralClass: [],
  relator: [],
  judgingBody: [],
  qualified: [],
  from: "",
  to: "",
  citedLaw: "",
  sort: "relevance",
  page: 1,
  similar: null,
};

/** URL parameter of each field (Portuguese, as lawyers read a shared link). */
const TEXT_PARAMS: Record<TextKey, string> = { q: "q", from: "de", to: "ate", citedLaw: "lei" };
const FACET_PARAMS: Record<FacetKey, string> = {
  type: "tipo",
  subtype: "subtipo",
  court: "tribunal",
  proceduralClass: "classe",
  relator: "relator",
  judgingBody: "orgao",
  qualified: "precedente",
};
const MAX_VALUES = 20;

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const MAX_LENGTH = 2000;

function clean(key: TextKey | FacetKey, value: string | null | undefined): string {
  const text = (value ?? "").trim().slice(0, MAX_LENGTH);
  if ((key === "from" || key === "to") && !DATE.test(text)) return "";
  return text;
}

function cleanList(key: FacetKey, values: readonly string[]): string[] {
  return [...new Set(values.map((v) => clean(key, v)).filter(Boolean))].slice(0, MAX_VALUES);
}

/** A passage id: a positive integer the API accepts (below 2**53, what a URL and JSON carry exactly). */
function cleanPassage(value: string | number | null | undefined): number | null {
  const text = typeof value === "number" ? String(value) : (value ?? "").trim();
  if (!/^\d{1,15}$/.test(text)) return null;
  const id = Number(text);
  return id >= 1 ? id : null;
}

function cleanPage(value: string | number | null | undefined): number {
  const page = typeof value === "number" ? value : Number.parseInt(value ?? "", 10);
  return Number.isInteger(page) && page >= 1 ? Math.min(page, MAX_PAGE) : 1;
}

export function stateFromParams(params: URLSearchParams): SearchState {
  const state: SearchState = { ...EMPTY_STATE };
  for (const key of Object.keys(TEXT_PARAMS) as TextKey[]) state[key] = clean(key, params.get(TEXT_PARAMS[key]));
  for (const key of FACET_KEYS) state[key] = cleanList(key, params.getAll(FACET_PARAMS[key]));
  state.sort = params.get("ordem") === "data" ? "date" : "relevance";
  state.page = cleanPage(params.get("pagina"));
  state.similar = cleanPassage(params.get("similar"));
  return state;
}

export function paramsFromState(state: SearchState): URLSearchParams {
  const params = new URLSearchParams();
  const q = clean("q", state.q);
  if (q) params.set("q", q);
  for (const key of FACET_KEYS) for (const value of cleanList(key, state[key])) params.append(FACET_PARAMS[key], value);
  for (const key of ["from", "to", "citedLaw"] as TextKey[]) {
    const value = clean(key, state[key]);
    if (value) params.set(TEXT_PARAMS[key], value);
  }
  if (state.sort === "date") params.set("ordem", "data");
  if (cleanPage(state.page) > 1) params.set("pagina", String(cleanPage(state.page)));
  const similar = cleanPassage(state.similar);
  if (similar !== null) params.set("similar", String(similar));
  return params;
}

/** Next.js hands a page its searchParams as a record; a repeated parameter (tribunal=stj&tribunal=tjsp) as a list. */
export function paramsFromRecord(record: Record<string, string | string[] | undefined>): URLSearchParams {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(record)) {
    for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) params.append(key, one);
  }
  return params;
}

const API_FACETS: Record<FacetKey, keyof ApiFilters> = {
  type: "document_type",
  subtype: "document_subtype",
  court: "court",
  proceduralClass: "procedural_class",
  relator: "relator",
  judgingBody: "judging_body",
  qualified: "qualified_precedent",
};

export function apiFilters(state: SearchState): ApiFilters {
  const filters: ApiFilters = {};
  for (const key of FACET_KEYS) {
    const values = cleanList(key, state[key]);
    if (values.length > 0) (filters as Record<string, string[]>)[API_FACETS[key]] = values;
  }
  if (state.from) filters.date_from = state.from;
  if (state.to) filters.date_to = state.to;
  if (state.citedLaw.trim()) filters.cited_law = state.citedLaw.trim();
  return filters;
}

/** The offset of the state's page (the API's `offset`). */
export function offsetOf(state: SearchState): number {
  return Math.min((cleanPage(state.page) - 1) * PAGE_SIZE, MAX_OFFSET);
}

/** Pages a search of `total` works has, as far as the API's offset reaches. */
export function pageCount(total: number): number {
  return Math.max(1, Math.min(Math.ceil(total / PAGE_SIZE), MAX_PAGE));
}

/** How many filters are on (each ticked value, each date, the cited law): the "Filtros (3)" button's count. */
export function activeFilterCount(state: SearchState): number {
  const ticked = FACET_KEYS.reduce((sum, key) => sum + state[key].length, 0);
  return ticked + [state.from, state.to, state.citedLaw.trim()].filter(Boolean).length;
}

export function hasFilters(state: SearchState): boolean {
  return activeFilterCount(state) > 0;
}
