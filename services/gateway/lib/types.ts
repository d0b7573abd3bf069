// The search service's response shapes (services/search/*.py), as the browser receives them.

export type Relevance = "forte" | "provável" | "fraca";

/** Another passage of the same work (services/search/query.py OtherPassage). */
export interface OtherPassage {
  passage_id: number;
  document_id: string;
  chunk_text: string;
  page_number: number;
  page_end?: number;
  section_path?: string | null;
  char_start?: number;
  char_end?: number;
  highlights?: [number, number][];
  /** An API path ("/documents/{id}?passage=N#page=3"): the gateway serves it under /api. */
  document_url: string;
}

/** Another file of the same decision or act (services/search/query.py DocumentCopy). */
export interface DocumentCopy {
  document_id: string;
  title: string;
  filename: string;
  document_type?: string | null;
  page_count?: number | null;
  /** true: the inteiro teor (it holds a relatório, voto, fundamentação or dispositivo); false: only the ementa (an
   * extract of at most 3 pages); null: its parts do not tell. */
  full_text?: boolean | null;
  document_url: string;
}

/** One work (a decision and its copies are one): its best passage and what a lawyer needs to cite it. */
export interface SearchResult {
  chunk_text: string;
  document_title: string;
  document_date: string | null;
  document_type: string | null;
  document_type_label?: string | null;
  court: string | null;
  court_label?: string | null;
  relevance_explanation: string;
  /** Kept by the API for ranking tools; the page never shows it (the grade says it for people). */
  similarity_score?: number;
  page_number: number;
  page_end?: number;
  section_path?: string | null;
  document_id: string;
  char_start?: number;
  char_end?: number;
  highlights?: [number, number][];
  passage_id?: number;
  work_id?: string;
  relevance?: Relevance;
  relevance_probability?: number;
  /** Why the grade is what it is: "conceito equivalente", "palavras da consulta"... */
  relevance_basis?: string[];
  /** [start, end) in chunk_text (code points) of the sentence that carries the query's concept. */
  explanation_span?: [number, number] | null;
  other_passages?: OtherPassage[];
  copies?: DocumentCopy[];
  /** Whether the file the passage is shown in is the inteiro teor (DocumentCopy.full_text's rule). */
  full_text?: boolean | null;
  citation?: string | null;
  ementa?: string | null;
  document_url?: string;
  process_number?: string | null;
  procedural_class?: string | null;
  relator?: string | null;
  /** A judge decided alone (a sentença, a vara's decision): `relator` is the judge, shown as "Juiz(a)". */
  judged_alone?: boolean;
  /** The redator do acórdão, when the relator was defeated: shown as "Redator(a) p/ o acórdão". */
  redator?: string | null;
  judging_body?: string | null;
  judgment_date?: string | null;
  publication_date?: string | null;
  /** Which act, work or filing ("resolucao", "artigo", "tese"): shared/legal/codes.py DOCUMENT_SUBTYPES. */
  document_subtype?: string | null;
  document_subtype_label?: string | null;
  /** An act's number as printed ("125") and who issued it. */
  act_number?: string | null;
  issuing_body?: string | null;
  /** A work of doctrine's authors (as printed), where it appeared and its year. */
  authors?: string[];
  venue?: string | null;
  year?: number | null;
  /** Pages of the document the index could not read (a photo, a scanned annex): nothing on them was searched. */
  unread_pages?: number[];
  /** What the work is among qualified precedents (role "is", first) and those it decides on ("applies"). */
  qualified_precedents?: QualifiedPrecedent[];
  /** Works of the base the caller may see that cite this one ("citado por N documentos do acervo"). */
  cited_by_count?: number;
  /** Up to five of them, the most recent first. */
  cited_by?: LinkedDocument[];
  /** The decisions of the base this work cites by case number, up to ten. */
  cites?: LinkedDocument[];
  /** What documents of the base say was cancelled, revised or overruled among this work's precedents. */
  status_signals?: StatusSignal[];
}

/** "Segundo o acervo: Súmula 408/STJ cancelada" (services/search/engine/models.py StatusSignal): only what a
 * document of the base the caller may see says, with that document. */
export interface StatusSignal {
  kind: "cancelada" | "revista" | "superada";
  target: string;
  statement: string;
  sentence: string;
  said_by: LinkedDocument;
  said_by_count: number;
}

/** A work of the base citing a result or cited by it (services/search/engine/models.py LinkedDocument). */
export interface LinkedDocument {
  document_id: string;
  title: string;
  citation?: string | null;
  document_type?: string | null;
  document_url: string;
}

/** A qualified precedent (CPC art. 927) a work is or applies (services/search/engine/models.py
 * QualifiedPrecedentBadge). */
export interface QualifiedPrecedent {
  /** "repercussao_geral", "repetitivo", "sumula_vinculante", "sumula", "irdr", "iac", "jurisprudencia_em_teses". */
  kind: string;
  court?: string | null;
  number?: string | null;
  role: "is" | "applies";
  item?: string | null;
  /** The badge: "Repetitivo – Tema 1.046", "Súmula vinculante 25". */
  label: string;
}

export type FacetField =
  | "document_type"
  | "document_subtype"
  | "court"
  | "relator"
  | "judging_body"
  | "procedural_class"
  | "qualified_precedent";

/** Documents per value; a facet with a selection is counted without it (its other values stay reachable). */
export type Facets = Partial<Record<FacetField, Record<string, number>>>;

export interface SearchResponse {
  results: SearchResult[];
  facets: Facets;
  /** Works among the query's candidates under these filters (not passages). */
  total?: number;
  /** Of them, the works graded "forte" or "provável". */
  relevant_total?: number;
  offset?: number;
  /** No work is at least "provável": nothing relevant was found, the results are only the closest. */
  no_strong_match?: boolean;
  /** One word that names no subject ("direito"): every result is weak; the page asks for more words. */
  vague_query?: boolean;
  /** POST /search/similar: the passage the list is near (its work is left out of the list). */
  similar_to?: SimilarSource | null;
}

/** The passage "Mais como este" started from (services/search/routers/search.py SimilarTo). */
export interface SimilarSource {
  passage_id: number;
  document_id: string;
  title: string;
  citation?: string | null;
  page_number: number;
}

/** The body of POST /search/similar (services/search/query.py SimilarRequest). */
export interface SimilarRequestBody {
  passage_id: number;
  filters: ApiFilters;
  top_k: number;
  offset?: number;
  sort?: SearchSort;
}

/** A person's judgment of a result for a query (services/search/store/judgments.py Judgment). */
export interface Judgment {
  id: number;
  judge: string;
  query: string;
  /** The query folded and lower-cased: one judgment per judge, query and passage. */
  query_key: string;
  document_id: string;
  passage_id: number;
  relevant: boolean;
  note: string | null;
  shown_rank?: number | null;
  updated_at: string;
}

/** The body of POST /judgments (services/search/routers/judgments.py JudgmentRequest). */
export interface JudgmentRequestBody {
  query: string;
  document_id: string;
  passage_id: number;
  relevant: boolean;
  note?: string;
  filters?: ApiFilters;
  sort?: SearchSort;
  shown_rank?: number;
}

/** GET /judgments. */
export interface JudgmentList {
  judgments: Judgment[];
  total: number;
  limit: number;
  offset: number;
}

export type SearchSort = "relevance" | "date";

/** The body of POST /search (services/search/query.py SearchRequest). */
export interface SearchRequestBody {
  query: string;
  filters: ApiFilters;
  top_k: number;
  offset?: number;
  sort?: SearchSort;
}

/** services/search/query.py SearchFilters: each facet one value or several (any of them). */
export interface ApiFilters {
  document_type?: string[];
  document_subtype?: string[];
  court?: string[];
  procedural_class?: string[];
  date_from?: string;
  date_to?: string;
  relator?: string[];
  judging_body?: string[];
  cited_law?: string;
  /** Kinds of qualified precedent the work is ("repetitivo", "repercussao_geral"). */
  qualified_precedent?: string[];
}

export interface ReviewItem {
  document_id: string;
  filename: string;
  stage: string;
  reason: string | null;
  reason_code: string | null;
  weak_pages: number[];
  /** An indexed document's pages left out of the index (reason_code "unread_pages"). */
  unread_pages?: number[];
  ocr_confidence: number | null;
  page_count: number | null;
  version: number;
  updated_at: string;
}

export interface ReviewPage {
  number: number;
  method: string;
  confidence: number;
  text: string;
  image_url: string | null;
  /** Left out of the index: correcting its text indexes it. */
  unread?: boolean;
}

export interface ReviewAction {
  action: string;
  actor: string;
  detail: Record<string, unknown>;
  at: string;
}

export interface ReviewDetail extends ReviewItem {
  pages: ReviewPage[];
  actions: ReviewAction[];
}

export interface ReviewQueue {
  items: ReviewItem[];
  counts: Record<string, number>;
}

export interface IngestionStatus {
  stages: Record<string, number>;
  review_reasons: Record<string, number>;
  failure_reasons: Record<string, number>;
  /** Indexed with pages left out unread (review code "unread_pages"): searchable, so in no review count. */
  unread_pages?: { documents: number; pages: number };
  /** The review queue per reason code, by GET /review's rule: what the filter "Aguardando revisão" lists. */
  review_queue?: Record<string, number>;
  /** Set only while ingestion holds back for search (admission control, issue 31 item 2). */
  yielding_to_search?: { documents: number; search_p95_ms: number; searches_in_flight: number; reason: string } | null;
  latest_stopped: {
    document_id: string;
    filename: string;
    stage: string;
    halted_in: string | null;
    reason_code: string | null;
    reason: string | null;
    at: string;
  }[];
}
