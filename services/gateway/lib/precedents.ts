// Qualified precedents (CPC art. 927) on the page: the kinds' labels, the badges of what a work is, the line of what
// it applies (services/search/engine/models.py QualifiedPrecedentBadge; the labels come with each result).
import { agree, plural } from "./labels";
import type { QualifiedPrecedent } from "./types";

/** Each kind's label, as shared/legal/precedents.py KIND_LABELS (a test compares them): the facet "Precedente
 * qualificado" labels its values before any result of them is shown. */
export const QUALIFIED_KIND_LABELS: Record<string, string> = {
  repercussao_geral: "Repercussão geral",
  repetitivo: "Repetitivo",
  sumula_vinculante: "Súmula vinculante",
  sumula: "Súmula",
  irdr: "IRDR",
  iac: "IAC",
  jurisprudencia_em_teses: "Jurisprudência em Teses",
};

export function qualifiedKindLabel(code: string): string {
  return QUALIFIED_KIND_LABELS[code] ?? code;
}

/** What the work itself is ("Repetitivo – Tema 1.046"): the card's badges. */
export function leadingBadges(precedents: QualifiedPrecedent[] | null | undefined): string[] {
  return [...new Set((precedents ?? []).filter((p) => p.role === "is").map((p) => p.label))];
}

/** APPLIED_SHOWN of the precedents the work decides on, then how many more: "Súmula 7/STJ, Tema 793 e mais 2". */
export const APPLIED_SHOWN = 4;

export function appliedLine(precedents: QualifiedPrecedent[] | null | undefined): string {
  const labels = [...new Set((precedents ?? []).filter((p) => p.role === "applies").map((p) => p.label))];
  const shown = labels.slice(0, APPLIED_SHOWN).join("; ");
  const more = labels.length - APPLIED_SHOWN;
  return more > 0 ? `${shown} e mais ${more}` : shown;
}

/** "Citado por 1 documento do acervo", "Citado por 3 documentos do acervo" (within what the caller may see). */
export function citedByLabel(count: number): string {
  return `Citado por ${plural(count, "documento", "documentos")} do acervo`;
}

/** "e mais 2 que não aparecem aqui" when the API listed fewer than it counted. */
export function citedByMore(count: number, listed: number): string {
  const more = count - listed;
  return more > 0 ? `e ${agree(more, "mais 1 não listado", `mais ${more} não listados`)}` : "";
}

/** "Cita 1 decisão do acervo", "Cita 3 decisões do acervo". */
export function citesLabel(count: number): string {
  return `Cita ${plural(count, "decisão", "decisões")} do acervo`;
}
