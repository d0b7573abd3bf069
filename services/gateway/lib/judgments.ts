// A lawyer's own judgments of results ("relevante" / "não relevante") for the query that found them: what the
// page sends to POST /judgments and how it reads GET /judgments back (issue #20, item 1).
import type { ApiFilters, Judgment, JudgmentList, JudgmentRequestBody, SearchResult, SearchSort } from "./types";

/**
 * What makes two queries the same one for the API (services/search/store/judgments.py normalise_query): accents,
 * case and runs of spaces do not count. GET /judgments?query= matches a part of it, so the page keeps only the
 * judgments of exactly this query.
 */
export function normaliseQuery(text: string): string {
  return text
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .replace(/\s+/g, " ")
    .trim();
}

/** The GET /judgments path for one person's judgments of one query. */
export function judgmentsPath(person: string, query: string): string {
  const params = new URLSearchParams({ query: query.trim(), limit: "1000" });
  if (person) params.set("person", person);
  return `/judgments?${params.toString()}`;
}

/** The person's judgments of this query, by passage (the latest change wins). */
export function judgmentsByPassage(list: JudgmentList | Judgment[], query: string, person?: string): Map<number, Judgment> {
  const judgments = Array.isArray(list) ? list : list.judgments;
  const key = normaliseQuery(query);
  const found = new Map<number, Judgment>();
  for (const judgment of judgments) {
    if (judgment.query_key !== key || (person && judgment.judge !== person)) continue;
    const earlier = found.get(judgment.passage_id);
    if (!earlier || earlier.updated_at <= judgment.updated_at) found.set(judgment.passage_id, judgment);
  }
  return found;
}

/** What the list the lawyer judged was: its query, filters, order and where the result stood. */
export interface JudgedList {
  query: string;
  filters: ApiFilters;
  sort: SearchSort;
}

/**
 * The body of POST /judgments. A judgment's note is replaced by what is sent, so changing only "relevante"
 * sends the note already there; an empty note is none.
 */
export function judgmentBody(
  list: JudgedList,
  result: Pick<SearchResult, "document_id" | "passage_id">,
  relevant: boolean,
  note: string | null | undefined,
  rank: number,
): JudgmentRequestBody {
  const body: JudgmentRequestBody = {
    query: list.query.trim(),
    document_id: result.document_id,
    passage_id: result.passage_id ?? 0,
    relevant,
    filters: list.filters,
    sort: list.sort,
    shown_rank: rank,
  };
  const text = (note ?? "").trim();
  if (text) body.note = text.slice(0, 2000);
  return body;
}

/** The line a screen reader hears, and everyone sees, after a judgment is saved or refused. */
export function judgmentMessage(outcome: "saved" | "failed", relevant: boolean, detail = ""): string {
  if (outcome === "failed") return `Não foi possível salvar a avaliação${detail ? ` (${detail})` : ""}. Tente de novo.`;
  return relevant ? "Avaliação salva: relevante." : "Avaliação salva: não relevante.";
}
