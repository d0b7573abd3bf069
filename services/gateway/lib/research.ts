// History and saved searches (issue 34, items 5 and 1): the API's shapes (services/search/routers/history.py and
// saved_searches.py) and the words and links the pages make of them, kept pure so they are tested without a browser.
import { courtLabel, formatDate, typeLabel } from "./format";
import type { ApiFilters, SearchSort } from "./types";
import { EMPTY_STATE, paramsFromState, type SearchState } from "./urlState";

/** One of the person's searches (GET /history). */
export interface HistoryEntry {
  id: number;
  query: string;
  filters: ApiFilters;
  sort: SearchSort;
  results: number;
  at: string;
}

export interface HistoryPage {
  items: HistoryEntry[];
  total: number;
  limit: number;
  offset: number;
  retention_days: number;
}

/** A saved search (GET /saved-searches); new_count: works new since the last visit, within the person's access. */
export interface SavedSearch {
  id: number;
  name: string;
  query: string;
  filters: ApiFilters;
  sort: SearchSort;
  email: string | null;
  created_at: string;
  last_visited_at: string;
  new_count: number | null;
}

export interface SavedSearchPage {
  items: SavedSearch[];
  total: number;
  limit: number;
  offset: number;
}

/** A work new to a saved search (services/search/alerts.py NewWork). */
export interface NewWork {
  work_id: string;
  document_id: string;
  title: string;
  citation: string | null;
  court_label: string | null;
  document_date: string | null;
  relevance: string;
  indexed_at: string;
  document_url: string;
}

export interface SavedSearchNews {
  search: SavedSearch;
  new: NewWork[];
}

export const HISTORY_PAGE_SIZE = 20;
export const SAVED_PAGE_SIZE = 10;

function list(value: string[] | string | undefined): string[] {
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}

/** The search page's state of a search the API kept (its query, filters and sort): what "Repetir" opens. */
export function stateOfSearch(query: string, filters: ApiFilters, sort: SearchSort): SearchState {
  return {
    ...EMPTY_STATE,
    q: query,
    type: list(filters.document_type),
    subtype: list(filters.document_subtype),
    court: list(filters.court),
    proceduralClass: list(filters.procedural_class),
    relator: list(filters.relator),
    judgingBody: list(filters.judging_body),
    qualified: list(filters.qualified_precedent),
    from: filters.date_from ?? "",
    to: filters.date_to ?? "",
    citedLaw: list(filters.cited_law)[0] ?? "",
    sort: sort === "date" ? "date" : "relevance",
  };
}

/** The search page's link that runs this search again. */
export function searchHref(query: string, filters: ApiFilters, sort: SearchSort): string {
  const params = paramsFromState(stateOfSearch(query, filters, sort)).toString();
  return params ? `/?${params}` : "/";
}

/** "Tribunal: STJ, TJSP · De 01/01/2020 · Ordem: data", or "" with no filter and the default order. */
export function filtersSummary(filters: ApiFilters, sort: SearchSort): string {
  const parts: string[] = [];
  const types = list(filters.document_type);
  if (types.length) parts.push(`Tipo: ${types.map((t) => typeLabel(t)).join(", ")}`);
  const courts = list(filters.court);
  if (courts.length) parts.push(`Tribunal: ${courts.map((c) => courtLabel(c)).join(", ")}`);
  for (const [key, label] of [
    ["document_subtype", "Subtipo"],
    ["relator", "Relator"],
    ["judging_body", "Órgão julgador"],
    ["procedural_class", "Classe"],
    ["qualified_precedent", "Precedente qualificado"],
    ["cited_law", "Lei citada"],
  ] as const) {
    const values = list(filters[key]);
    if (values.length) parts.push(`${label}: ${values.join(", ")}`);
  }
  if (filters.date_from) parts.push(`De ${formatDate(filters.date_from)}`);
  if (filters.date_to) parts.push(`Até ${formatDate(filters.date_to)}`);
  if (sort === "date") parts.push("Ordem: data");
  return parts.join(" · ");
}

/** Beside a saved search's name: "3 novos", "1 novo"; nothing when there is nothing new (or it was not counted). */
export function newCountLabel(count: number | null | undefined): string {
  if (!count) return "";
  return count === 1 ? "1 novo" : `${count} novos`;
}

/** The accessible name of that badge: the count in words, and since when. */
export function newCountTitle(count: number): string {
  return `${newCountLabel(count)} desde a sua última visita`;
}

/** "Forte" / "Provável", as the result card says the grade. */
export function relevanceLabel(grade: string): string {
  return grade === "forte" ? "Relevância forte" : grade === "provável" ? "Relevância provável" : `Relevância ${grade}`;
}

/** A new work's line under its name: court, date. */
export function newWorkFacts(work: NewWork): string {
  return [work.court_label, formatDate(work.document_date)].filter(Boolean).join(" · ");
}

/** "12 pesquisas" / "1 pesquisa". */
export function searchesCount(n: number): string {
  return n === 1 ? "1 pesquisa" : `${n} pesquisas`;
}

/** The body of POST /saved-searches for the search shown on the page. */
export function saveBody(
  name: string,
  query: string,
  filters: ApiFilters,
  sort: SearchSort,
  email: string,
): { name: string; query: string; filters: ApiFilters; sort: SearchSort; email?: string } {
  const body: { name: string; query: string; filters: ApiFilters; sort: SearchSort; email?: string } = {
    name: name.trim() || query.trim().slice(0, 200),
    query: query.trim(),
    filters,
    sort,
  };
  if (email.trim()) body.email = email.trim();
  return body;
}
