// GET /documents (services/search/routers/documents.py list_documents) and a document's status, as the ingestion
// page asks for and reads them.

/** One document of GET /documents: its status without the history, with when and why it last changed. */
export interface ListedDocument {
  document_id: string;
  filename: string;
  stage: string;
  version: number;
  attempts: number;
  error: string | null;
  weak_pages: number[];
  ocr_confidence: number | null;
  page_count: number | null;
  chunk_count: number | null;
  title: string | null;
  document_type: string | null;
  court: string | null;
  updated_at: string;
  halted_in?: string | null;
  reason_code?: string | null;
}

export interface DocumentList {
  total: number;
  documents: ListedDocument[];
}

export interface HistoryEntry {
  version: number;
  stage: string;
  detail: string | null;
  at: string;
}

/** GET /documents/{id}/status: the history is what the list leaves out. */
export interface DocumentStatusDetail extends ListedDocument {
  history: HistoryEntry[];
}

/** What the list's filter offers: a group of stages per choice ("" is every document); "Aguardando revisão" is the
 * review queue's own rule (GET /documents?awaiting_review=true: in review, failed while being read, indexed with
 * unread pages), the one GET /status counts in review_queue. By stage alone it found none of a count of 1 (issue
 * 36): that document was indexed with an unread page. */
export const STATE_FILTERS: { value: string; label: string; stages: string[]; awaitingReview?: boolean }[] = [
  { value: "", label: "Todos", stages: [] },
  { value: "andamento", label: "Em processamento", stages: ["submitted", "extracted", "cleaned", "chunked", "annotated"] },
  { value: "indexado", label: "Indexados", stages: ["indexed"] },
  { value: "revisao", label: "Aguardando revisão", stages: [], awaitingReview: true },
  { value: "falhou", label: "Não processados", stages: ["failed"] },
  { value: "excluido", label: "Excluídos", stages: ["deleted"] },
];

export const PAGE_SIZE = 20;

/** Stages still on their way: a list holding one of them is asked again a few seconds later. */
export const IN_PROGRESS = new Set(["submitted", "extracted", "cleaned", "chunked", "annotated"]);

/** The GET /documents query of the page's search box, state filter and page. */
export function listQuery(q: string, state: string, offset: number, limit: number = PAGE_SIZE): string {
  const params = new URLSearchParams();
  if (q.trim()) params.set("q", q.trim().slice(0, 200));
  const filter = STATE_FILTERS.find((f) => f.value === state);
  for (const stage of filter?.stages ?? []) params.append("stage", stage);
  if (filter?.awaitingReview) params.set("awaiting_review", "true");
  params.set("limit", String(limit));
  if (offset > 0) params.set("offset", String(offset));
  return `/documents?${params.toString()}`;
}

/** The comma-separated access_groups of POST /documents: "*" (everyone) when none is chosen. */
export function accessGroupsField(chosen: string[], typed: string): string {
  const names = [...chosen, ...typed.split(/[,;\s]+/)].map((g) => g.trim()).filter(Boolean);
  const unique = [...new Set(names)];
  return unique.length === 0 ? "*" : unique.join(",");
}
