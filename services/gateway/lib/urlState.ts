// The search as it stands in the URL (?q=...&tipo=...), so a search can be shared and reloaded.
import type { ApiFilters } from "./types";

export interface SearchState {
  q: string;
  type: string;
  /** A document_subtype code ("resolucao", "artigo"). */
  subtype: string;
  court: string;
  from: string;
  to: string;
  relator: string;
  judgingBody: string;
  citedLaw: string;
}

export const EMPTY_STATE: SearchState = {
  q: "",
  type: "",
  subtype: "",
  court: "",
  from: "",
  to: "",
  relator: "",
  judgingBody: "",
  citedLaw: "",
};

/** URL parameter of each field (Portuguese, as lawyers read a shared link). */
const PARAMS: Record<keyof SearchState, string> = {
  q: "q",
  type: "tipo",
  subtype: "subtipo",
  court: "tribunal",
  from: "de",
  to: "ate",
  relator: "relator",
  judgingBody: "orgao",
  citedLaw: "lei",
};

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const MAX_LENGTH = 2000;

function clean(key: keyof SearchState, value: string | null | undefined): string {
  const text = (value ?? "").trim().slice(0, MAX_LENGTH);
  if ((key === "from" || key === "to") && !DATE.test(text)) return "";
  return text;
}

export function stateFromParams(params: URLSearchParams): SearchState {
  const state = { ...EMPTY_STATE };
  for (const key of Object.keys(PARAMS) as (keyof SearchState)[]) {
    state[key] = clean(key, params.get(PARAMS[key]));
  }
  return state;
}

export function paramsFromState(state: SearchState): URLSearchParams {
  const params = new URLSearchParams();
  for (const key of Object.keys(PARAMS) as (keyof SearchState)[]) {
    const value = clean(key, state[key]);
    if (value) params.set(PARAMS[key], value);
  }
  return params;
}

/** Next.js hands a page its searchParams as a record; the first value of each wins. */
export function paramsFromRecord(record: Record<string, string | string[] | undefined>): URLSearchParams {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(record)) {
    const first = Array.isArray(value) ? value[0] : value;
    if (first !== undefined) params.set(key, first);
  }
  return params;
}

export function apiFilters(state: SearchState): ApiFilters {
  const filters: ApiFilters = {};
  if (state.type) filters.document_type = state.type;
  if (state.subtype) filters.document_subtype = state.subtype;
  if (state.court) filters.court = state.court;
  if (state.from) filters.date_from = state.from;
  if (state.to) filters.date_to = state.to;
  if (state.relator) filters.relator = state.relator;
  if (state.judgingBody) filters.judging_body = state.judgingBody;
  if (state.citedLaw) filters.cited_law = state.citedLaw;
  return filters;
}

export function hasFilters(state: SearchState): boolean {
  return Object.keys(apiFilters(state)).length > 0;
}
