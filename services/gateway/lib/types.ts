// The search service's response shapes (services/search/*.py), as the browser receives them.

export interface SearchResult {
  chunk_text: string;
  document_title: string;
  document_date: string | null;
  document_type: string | null;
  document_type_label?: string | null;
  court: string | null;
  court_label?: string | null;
  relevance_explanation: string;
  similarity_score: number;
  page_number: number;
  page_end?: number;
  section_path?: string | null;
  document_id: string;
  char_start?: number;
  char_end?: number;
  highlights?: [number, number][];
}

export type Facets = Partial<Record<"document_type" | "court" | "relator" | "judging_body", Record<string, number>>>;

export interface SearchResponse {
  results: SearchResult[];
  facets: Facets;
}

export interface ApiFilters {
  document_type?: string;
  court?: string;
  date_from?: string;
  date_to?: string;
  relator?: string;
  judging_body?: string;
  cited_law?: string;
}

export interface ReviewItem {
  document_id: string;
  filename: string;
  stage: string;
  reason: string | null;
  reason_code: string | null;
  weak_pages: number[];
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
