// Display helpers: Brazilian dates, code labels, page spans.

export const DOCUMENT_TYPE_LABELS: Record<string, string> = {
  acordao: "Acórdão",
  sentenca: "Sentença",
  decisao_monocratica: "Decisão monocrática",
  despacho: "Despacho",
  parecer: "Parecer",
  peticao: "Petição",
  contrato: "Contrato",
  sumula: "Súmula / enunciado",
  ato_normativo: "Ato normativo",
  ato_administrativo: "Ato administrativo",
  email: "E-mail",
  outro: "Outro",
};

/** "2019-03-07" -> "07/03/2019"; anything else as given. */
export function formatDate(iso: string | null | undefined): string {
  if (!iso) return "";
  const match = /^(\d{4})-(\d{2})-(\d{2})/.exec(iso);
  return match ? `${match[3]}/${match[2]}/${match[1]}` : iso;
}

export function formatDateTime(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return date.toLocaleString("pt-BR", { dateStyle: "short", timeStyle: "short", timeZone: "America/Sao_Paulo" });
}

export function typeLabel(code: string, known?: Record<string, string>): string {
  return known?.[code] ?? DOCUMENT_TYPE_LABELS[code] ?? code;
}

/** Court codes are lower-case ("tjsp", "tre_sp"); their labels upper-case ("TJSP", "TRE-SP"). */
export function courtLabel(code: string, known?: Record<string, string>): string {
  return known?.[code] ?? code.toUpperCase().replace(/_/g, "-");
}

export function pageSpan(first: number, last?: number): string {
  return last && last > first ? `p. ${first}–${last}` : `p. ${first}`;
}

export function percent(value: number | null | undefined): string {
  return value === null || value === undefined ? "—" : `${Math.round(value * 100)}%`;
}

export const STAGE_LABELS: Record<string, string> = {
  submitted: "Recebido",
  extracted: "Extraído",
  cleaned: "Limpo",
  chunked: "Segmentado",
  annotated: "Anotado",
  indexed: "Indexado",
  review: "Em revisão",
  failed: "Falhou",
  deleted: "Excluído",
};

export function stageLabel(stage: string): string {
  return STAGE_LABELS[stage] ?? stage;
}

/** The document's original file through the gateway, opened at the passage's page. */
export function documentHref(documentId: string, page: number): string {
  return `/api/documents/${encodeURIComponent(documentId)}#page=${Math.max(1, Math.trunc(page))}`;
}
