// Display helpers: Brazilian dates, code labels, section labels, relevance grades, page spans, document links.
import type { Relevance } from "./types";

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
  doutrina: "Doutrina",
  jurisprudencia_compilada: "Jurisprudência compilada",
  email: "E-mail",
  outro: "Outro",
};

/** "2019-03-07" -> "07/03/2019"; anything else as given. */
/** Decisions are judged; an act, a parecer or a work of doctrine only has its date (shared/legal/codes.py DECISION_TYPES). */
const DECISION_TYPES = new Set(["acordao", "sentenca", "decisao_monocratica", "despacho"]);

export function dateLabel(documentType: string | null | undefined): string {
  return documentType && DECISION_TYPES.has(documentType) ? "Julgado em" : "Data";
}

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

/** Every subtype's label, as shared/legal/codes.py DOCUMENT_SUBTYPE_LABELS (a test compares them): a facet's
 * value is labelled before any result of it is shown. */
export const DOCUMENT_SUBTYPE_LABELS: Record<string, string> = {
  lei: "Lei",
  lei_complementar: "Lei complementar",
  decreto: "Decreto",
  decreto_lei: "Decreto-lei",
  medida_provisoria: "Medida provisória",
  emenda_constitucional: "Emenda constitucional",
  resolucao: "Resolução",
  provimento: "Provimento",
  portaria: "Portaria",
  instrucao_normativa: "Instrução normativa",
  codigo: "Código",
  regimento: "Regimento",
  diretiva: "Diretiva (UE)",
  regulamento: "Regulamento (UE)",
  decisao_ue: "Decisão (UE)",
  retificacao: "Retificação",
  oficio: "Ofício",
  edital: "Edital",
  ata: "Ata",
  memorando: "Memorando",
  circular: "Circular",
  nota_tecnica: "Nota técnica",
  decisao_administrativa: "Decisão administrativa",
  artigo: "Artigo",
  tese: "Tese de doutorado",
  dissertacao: "Dissertação de mestrado",
  monografia: "Monografia / TCC",
  livro: "Livro / coletânea",
  capitulo: "Capítulo de livro",
  comentario: "Comentário de jurisprudência",
  material_didatico: "Material didático (prova ou questões comentadas)",
  jurisprudencia_em_teses: "Jurisprudência em Teses",
  informativo: "Informativo de jurisprudência",
  ementario: "Ementário",
  jurisprudencia_comentada: "Jurisprudência comentada",
  peticao_inicial: "Petição inicial",
  contestacao: "Contestação",
  replica: "Réplica",
  recurso: "Recurso",
  contrarrazoes: "Contrarrazões",
  memoriais: "Memoriais",
  manifestacao: "Manifestação",
  sumula: "Súmula",
  sumula_vinculante: "Súmula vinculante",
  enunciado: "Enunciado",
};

/** A subtype's label as the results carried it ("resolucao" -> "Resolução"), else the vocabulary's, else the code
 * as words. */
export function subtypeLabel(code: string, known?: Record<string, string>): string {
  const words = code.replace(/_/g, " ");
  return known?.[code] ?? DOCUMENT_SUBTYPE_LABELS[code] ?? words.charAt(0).toUpperCase() + words.slice(1);
}

/** A work's authors as a line ("Ana Souza; Pedro Queiroz"), up to three and "et al." after them. */
export function authorsLine(authors: string[] | null | undefined): string {
  const names = (authors ?? []).map((name) => name.trim()).filter(Boolean);
  return names.length > 3 ? `${names.slice(0, 3).join("; ")} et al.` : names.join("; ");
}

/** The courts and origins whose label is not their code upper-cased, as shared/legal/codes.py FIXED_COURT_LABELS
 * (a test compares them): a facet's value is labelled before any result of it is shown ("Escritório (interno)",
 * never "INTERNO"). */
export const COURT_LABELS: Record<string, string> = {
  ue: "União Europeia",
  presidencia: "Presidência da República",
  interno: "Escritório (interno)",
  bcb: "Banco Central",
  rfb: "Receita Federal",
};

/** Court codes are lower-case ("tjsp", "tre_sp"); their labels upper-case ("TJSP", "TRE-SP"). */
export function courtLabel(code: string, known?: Record<string, string>): string {
  return known?.[code] ?? COURT_LABELS[code] ?? code.toUpperCase().replace(/_/g, "-");
}

/** The EU Court's English names of its proceedings and formations -> the Portuguese of its judgments in Portuguese,
 * as shared/legal/codes.py EU_ENGLISH_NAMES (a test compares them). The annotator stores the Portuguese; a class or
 * judging body stored in English before is shown in Portuguese too. */
export const EU_ENGLISH_NAMES: Record<string, string> = {
  "Reference for a preliminary ruling": "Pedido de decisão prejudicial",
  "Action for failure to fulfil obligations": "Ação por incumprimento",
  "Action for annulment": "Recurso de anulação",
  "Grand Chamber": "Grande Secção",
  "First Chamber": "1ª Secção",
  "Second Chamber": "2ª Secção",
  "Third Chamber": "3ª Secção",
  "Fourth Chamber": "4ª Secção",
  "Fifth Chamber": "5ª Secção",
  "Sixth Chamber": "6ª Secção",
  "Seventh Chamber": "7ª Secção",
  "Eighth Chamber": "8ª Secção",
  "Ninth Chamber": "9ª Secção",
  "Tenth Chamber": "10ª Secção",
};

/** A procedural class or a judging body as the page shows it: in Portuguese (EU_ENGLISH_NAMES), else as stored. */
export function nameLabel(name: string): string {
  return EU_ENGLISH_NAMES[name] ?? name;
}

/** "Página 3 não lida", "Páginas 10 e 11 não lidas": the CLI says the same (precedente/cli/search.py). */
export function unreadPagesLabel(pages: number[]): string {
  if (pages.length === 1) return `Página ${pages[0]} não lida`;
  return `Páginas ${pages.slice(0, -1).join(", ")} e ${pages[pages.length - 1]} não lidas`;
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

/**
 * An API path the search service gave ("/documents/{id}?passage=N#page=3") as the gateway serves it (/api...).
 * Only a path of this origin is taken ("//host", "javascript:" and full URLs are not); else the fallback.
 */
export function apiHref(path: string | null | undefined, fallback: string): string {
  if (!path || !path.startsWith("/") || path.startsWith("//") || path.startsWith("/\\")) return fallback;
  return `/api${path}`;
}

/** The top-level part codes of shared/legal/sections.py, as a lawyer names them. */
export const SECTION_LABELS: Record<string, string> = {
  cabecalho: "Cabeçalho",
  abertura: "Abertura",
  preambulo: "Preâmbulo",
  resumo: "Resumo",
  introducao: "Introdução",
  corpo: "Texto",
  ementa: "Ementa",
  acordao: "Acórdão",
  relatorio: "Relatório",
  voto: "Voto",
  voto_vencido: "Voto vencido",
  voto_vista: "Voto-vista",
  voto_vogal: "Voto vogal",
  debate: "Debates",
  certidao: "Certidão de julgamento",
  dispositivo: "Dispositivo",
  decisao: "Decisão",
  fatos: "Fatos",
  direito: "Direito",
  fundamentacao: "Fundamentação",
  preliminar: "Preliminares",
  pedidos: "Pedidos",
  conclusao: "Conclusão",
  decide: "Parte decisória",
  considerandos: "Considerandos",
  notas: "Notas",
};

/**
 * A section path ("voto > II – Da não incidência do CDC", parts joined by " > ") with its codes as labels
 * ("Voto › II – Da não incidência do CDC"); headings taken from the text stay as written.
 */
export function sectionLabel(path: string | null | undefined): string {
  if (!path) return "";
  return path
    .split(" > ")
    .map((part) => {
      const code = part.trim();
      const message = /^mensagem (\d+)$/.exec(code);
      if (message) return `Mensagem ${message[1]}`;
      return SECTION_LABELS[code] ?? code;
    })
    .filter(Boolean)
    .join(" › ");
}

/**
 * Each part as a place after the page ("p. 4, na ementa"), as the CLI says it (shared/legal/sections.py
 * SECTION_PLACES): a bare "Acórdão" beside the "Acórdão" type tag read as the type twice (issue 36).
 */
export const SECTION_PLACES: Record<string, string> = {
  cabecalho: "no cabeçalho",
  abertura: "na abertura",
  preambulo: "no preâmbulo",
  resumo: "no resumo",
  introducao: "na introdução",
  corpo: "no texto",
  ementa: "na ementa",
  acordao: "no acórdão (resultado do julgamento)",
  relatorio: "no relatório",
  voto: "no voto",
  voto_vencido: "no voto vencido",
  voto_vista: "no voto-vista",
  voto_vogal: "no voto vogal",
  debate: "nos debates",
  certidao: "na certidão de julgamento",
  dispositivo: "no dispositivo",
  decisao: "na decisão",
  fatos: "nos fatos",
  direito: "na parte do direito",
  fundamentacao: "na fundamentação",
  preliminar: "nas preliminares",
  pedidos: "nos pedidos",
  conclusao: "na conclusão",
  decide: "na parte decisória",
  considerandos: "nos considerandos",
  notas: "nas notas",
};

/**
 * "voto > II – Da não incidência" -> "no voto › II – Da não incidência": where a passage sits, as a place. A path
 * whose top is a heading of its own ("Art. 51 > § 2º") is its label: a heading names itself.
 */
export function sectionPlace(path: string | null | undefined): string {
  const [top, ...rest] = (path ?? "").split(" > ").map((part) => part.trim()).filter(Boolean);
  if (top === undefined) return "";
  const message = /^mensagem (\d+)$/.exec(top);
  const place = message ? `na mensagem ${message[1]}` : SECTION_PLACES[top];
  if (place === undefined) return sectionLabel(path);
  return [place, sectionLabel(rest.join(" > "))].filter(Boolean).join(" › ");
}

/** "p. 4, na ementa", "p. 6–7, no voto › I – ...": the page and the part a passage is in, one reading. */
export function passagePlace(first: number, last: number | undefined, path: string | null | undefined): string {
  return [pageSpan(first, last), sectionPlace(path)].filter(Boolean).join(", ");
}

/** A number that opens with its class's abbreviation: "REsp 1.602.076/SP", "EDcl no REsp ...", "ADI 5.766". */
const NAMES_ITS_CLASS = /^(?!n[º°o.]?\s)\p{L}[\p{L}.]*\s/iu;

/**
 * The card's "Processo": the class once. "REsp 1.602.076/SP" already names its class, so "Recurso Especial" is not
 * put before it ("Recurso Especial REsp ...", issue 36); a bare number gets its class ("Apelação Cível 0740303-...",
 * "Pedido de decisão prejudicial C-311/18").
 */
export function processLabel(procedural_class: string | null | undefined, number: string | null | undefined): string {
  const cls = procedural_class ? nameLabel(procedural_class) : "";
  if (!number) return cls;
  return cls && !NAMES_ITS_CLASS.test(number) ? `${cls} ${number}` : number;
}

export const RELEVANCE_LABELS: Record<Relevance, string> = {
  forte: "Relevância forte",
  provável: "Relevância provável",
  fraca: "Relevância fraca",
};

/** The grade a card shows: the API's, "fraca" when it sent none or one this page does not know. */
export function relevanceOf(value: string | null | undefined): Relevance {
  return value === "forte" || value === "provável" ? value : "fraca";
}

/** A class-name-safe form of the grade ("provável" -> "provavel"). */
export function relevanceClass(grade: Relevance): string {
  return grade === "provável" ? "provavel" : grade;
}

/** "1 decisão/documento", "12 decisões/documentos": results count works, not passages. */
export function worksCount(total: number): string {
  return `${total} ${total === 1 ? "decisão/documento" : "decisões/documentos"}`;
}
