// Every stage, state, reason code and review action the API sends, as the people who ingest and review read them.
// One module for every page, so no page shows a code ("low_ocr_confidence") or mixes English in.
// The codes come from shared/contracts.py (Stage), shared/runtime/pipeline.py (the services that stop a document:
// halted_in), the extractor (shared/formats.py, services/extractor/*.py BadInput/ToReview codes), shared/runtime/stage.py
// (unreadable, needs_review, repeated_failure), services/indexer (superseded, embedding_model_mismatch),
// services/search/routers/review.py (rejected) and shared/runtime/outbox.py (publishing, unpublished).

/** The ledger's stages (shared/contracts.py Stage), as a state of the document. */
export const STAGE_LABELS: Record<string, string> = {
  submitted: "Recebido",
  extracted: "Texto extraído",
  cleaned: "Texto limpo",
  chunked: "Dividido em trechos",
  annotated: "Metadados extraídos",
  indexed: "Indexado",
  review: "Aguardando revisão",
  failed: "Não processado",
  deleted: "Excluído",
};

/** The stages in the order a document goes through them, then the stops off the chain. */
export const STAGE_ORDER = ["submitted", "extracted", "cleaned", "chunked", "annotated", "indexed", "review", "failed", "deleted"];

/** Who stopped a document (documents.halted_in): a pipeline service (shared/runtime/pipeline.py) or the review. */
export const SERVICE_LABELS: Record<string, string> = {
  extractor: "extração do texto",
  cleaner: "limpeza do texto",
  chunker: "divisão em trechos",
  annotator: "extração de metadados",
  indexer: "indexação",
  review: "revisão",
};

/** The reason codes (documents.reason_code): what stopped a document, in a few words. */
export const REASON_LABELS: Record<string, string> = {
  low_ocr_confidence: "Leitura da imagem pouco confiável",
  unread_pages: "Indexado sem algumas páginas",
  ocr_page_failed: "Falha na leitura de alguma página",
  needs_review: "Precisa de revisão",
  password_protected: "Protegido por senha",
  no_text: "Sem texto legível",
  no_pages: "Documento sem páginas",
  empty: "Arquivo vazio",
  unsupported_format: "Formato não suportado",
  damaged: "Arquivo danificado ou incompleto",
  hash_mismatch: "Arquivo guardado difere do enviado",
  too_large: "Arquivo grande demais",
  too_many_pages: "Páginas demais",
  page_too_large: "Página grande demais",
  image_bomb: "Imagem grande demais",
  zip_bomb: "Arquivo compactado suspeito",
  too_much_memory: "Memória insuficiente para lê-lo",
  timeout: "Leitura demorou demais",
  reader_crashed: "O leitor do arquivo falhou",
  converter_missing: "Conversor do formato não instalado",
  embedding_model_mismatch: "Modelo de busca diferente do índice",
  unreadable: "Ilegível",
  repeated_failure: "Falhou várias vezes seguidas",
  superseded: "Substituído por versão mais nova",
  rejected: "Rejeitado na revisão",
  publishing: "Enviando para processamento",
  unpublished: "Aguardando envio para processamento",
  unknown: "Outro motivo",
};

/** What a person can do about each reason: the next step, in Portuguese. */
export const REASON_HINTS: Record<string, string> = {
  low_ocr_confidence: "Confira a imagem e corrija o texto, leia as páginas de novo com mais resolução ou rejeite.",
  unread_pages:
    "O documento já está na busca, sem as páginas marcadas: corrija o texto delas, leia-as de novo com mais resolução ou aprove-as como estão.",
  ocr_page_failed: "O texto de alguma página está faltando: leia as páginas de novo ou corrija a página à mão.",
  needs_review: "Confira o documento antes de indexá-lo.",
  password_protected: "Envie uma cópia sem senha.",
  no_text: "Não há texto a indexar: leia as páginas de novo com mais resolução ou envie uma cópia digitalizada melhor.",
  no_pages: "Envie o arquivo de novo ou outra cópia.",
  empty: "Envie o arquivo de novo: o enviado tem 0 bytes.",
  unsupported_format: "Envie em PDF, DOCX, DOC, ODT, RTF, HTML, TXT ou e-mail (.eml).",
  damaged: "Exporte ou digitalize o documento de novo.",
  hash_mismatch: "Envie o arquivo de novo.",
  too_large: "Divida o arquivo ou peça ao administrador para aumentar o limite.",
  too_many_pages: "Divida o documento em partes menores.",
  page_too_large: "Digitalize a página com resolução menor.",
  image_bomb: "Digitalize com resolução menor.",
  zip_bomb: "Salve o documento de novo no editor de texto e envie essa cópia.",
  too_much_memory: "Divida o documento em partes menores.",
  timeout: "Tente de novo mais tarde ou divida o documento.",
  reader_crashed: "Salve o documento de novo (em PDF, por exemplo) e envie essa cópia.",
  converter_missing: "O administrador precisa instalar o LibreOffice; ou envie o documento em PDF.",
  embedding_model_mismatch: "O administrador precisa reindexar com o modelo atual.",
  repeated_failure: "O administrador pode ver o erro técnico abaixo; envie o arquivo de novo mais tarde.",
  superseded: "Uma versão mais nova do arquivo foi enviada depois.",
  unpublished: "O envio é retomado sozinho quando o serviço de mensagens voltar.",
};

/** Review actions (review_actions.action). */
export const ACTION_LABELS: Record<string, string> = {
  approve: "aprovou",
  reocr: "pediu nova leitura das páginas",
  correct: "corrigiu o texto",
  reject: "rejeitou",
};

/** How a page's text was read (shared/payloads.py Page.method). */
export const METHOD_LABELS: Record<string, string> = {
  text: "texto do arquivo",
  ocr: "lida da imagem",
  manual: "corrigida à mão",
};

/** Outcomes of POST /documents (shared/runtime/ledger.py register_submission). */
export const UPLOAD_OUTCOMES: Record<string, string> = {
  new: "Recebido: será processado",
  new_version: "Nova versão recebida: será processada",
  duplicate: "Já recebido antes (mesmo arquivo)",
  unchanged: "Já recebido antes (mesma versão)",
  retry: "Enviado de novo: será processado outra vez",
  already_deleted: "Já excluído",
  deleted: "Excluído",
};

/** Why POST /documents refused a file, by its status: the API's own sentence stays as a technical detail. */
export const UPLOAD_ERRORS: Record<number, string> = {
  400: "o envio chegou incompleto; tente de novo",
  403: "você não tem permissão para enviar este documento",
  413: "arquivo maior que o limite do escritório",
  415: "formato não suportado ou arquivo vazio",
  422: "os dados do envio não foram aceitos",
  429: "muitos envios seguidos; espere um pouco e tente de novo",
  502: "o serviço de busca está fora do ar; tente mais tarde",
  503: "o serviço está indisponível no momento; tente mais tarde",
};

export function uploadErrorLabel(status: number): string {
  return UPLOAD_ERRORS[status] ?? `erro ${status}`;
}

function sentence(code: string): string {
  const words = code.replace(/_/g, " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}

export function stageLabel(stage: string): string {
  return STAGE_LABELS[stage] ?? sentence(stage);
}

export function serviceLabel(service: string): string {
  return SERVICE_LABELS[service] ?? service;
}

/** A stopped document's state in one phrase: "Aguardando revisão (parado na extração do texto)". */
export function stateLabel(stage: string, haltedIn?: string | null): string {
  const label = stageLabel(stage);
  if (!haltedIn || (stage !== "review" && stage !== "failed")) return label;
  if (haltedIn === "review") return stage === "failed" ? "Rejeitado na revisão" : label;
  return `${label} (parado na ${serviceLabel(haltedIn)})`;
}

export function reasonLabel(code: string | null | undefined): string {
  return REASON_LABELS[code ?? "unknown"] ?? sentence(code ?? "unknown");
}

export function reasonHint(code: string | null | undefined): string {
  return REASON_HINTS[code ?? ""] ?? "";
}

export function actionLabel(action: string): string {
  return ACTION_LABELS[action] ?? action;
}

export function methodLabel(method: string): string {
  return METHOD_LABELS[method] ?? method;
}

export function uploadOutcomeLabel(outcome: string): string {
  return UPLOAD_OUTCOMES[outcome] ?? sentence(outcome);
}

const pct = (value: string | undefined) => `${Math.round(Number(value ?? "0") * 100)}%`;

/**
 * The API's reason text (English, for operators and logs) in Portuguese where its shape is known; null when it is
 * not, and the page then shows the code's label and hint and keeps the original as a technical detail.
 */
export function reasonText(reason: string | null | undefined): string | null {
  if (!reason) return null;
  const text = reason.replace(/^(extractor|cleaner|chunker|annotator|indexer): /, "");
  let m = /^OCR confidence (\d(?:\.\d+)?) is below the bar of (\d(?:\.\d+)?)(?: \(weak pages: ([^)]*)\))?/.exec(text);
  if (m) {
    const pages = m[3] && m[3] !== "none individually" ? m[3].split(/,\s*/).filter(Boolean) : [];
    const weak = pages.length > 0 ? `; ${weakPagesText(pages).replace(/^P/, "p")}` : "";
    return `Confiança da leitura da imagem de ${pct(m[1])}, abaixo do mínimo de ${pct(m[2])}${weak}.`;
  }
  m = /^OCR confidence of (\d+) page\(s\) is far below the bar of (\d(?:\.\d+)?) \(([^)]*)\)/.exec(text);
  if (m) {
    const pages = (m[3] ?? "").replace(/page (\d+): (\d(?:\.\d+)?)/g, (_, n: string, c: string) => `página ${n}: ${pct(c)}`);
    return `Confiança da leitura muito abaixo do mínimo de ${pct(m[2])} em ${count(m[1], "página", "páginas")} (${pages}).`;
  }
  m = /^pages? ([\d, and]+) left out of the index, the other (\d+) indexed/.exec(text);
  if (m) {
    const pages = (m[1] ?? "").trim().replace(/ and /g, " e ");
    const many = /\D/.test(pages);
    const others = Number(m[2]);
    const rest = others === 1 ? "a outra está indexada" : `as outras ${m[2]} estão indexadas`;
    return `${many ? "Páginas" : "Página"} ${pages} fora do índice (sem texto legível ou leitura fraca); ${rest}.`;
  }
  m = /^OCR failed on (\d+) page\(s\)/.exec(text);
  if (m) {
    return `A leitura da imagem falhou em ${count(m[1], "página", "páginas")}: o texto ${agree(Number(m[1]), "dela", "delas")} está faltando.`;
  }
  m = /^rejected by ([^:]+): ([\s\S]*)$/.exec(text);
  if (m) return `Rejeitado por ${m[1]}: ${m[2]}`;
  m = /^approved by (.+)$/.exec(text);
  if (m) return `Aprovado por ${m[1]}`;
  m = /^re-OCR asked by (.+)$/.exec(text);
  if (m) return `Nova leitura das páginas pedida por ${m[1]}`;
  m = /^deleted \(([^)]*)\) by (.+)$/.exec(text);
  if (m) return `Excluído por ${m[2]}`;
  return null;
}

/** A submission's history detail (its outcome): "" where the stage's own label says it all. */
const SUBMISSION_DETAILS: Record<string, string> = { new: "", new_version: "nova versão", retry: "enviado de novo" };

const count = (n: string | undefined, one: string, many: string) => plural(Number(n ?? "0"), one, many);

/**
 * A history entry's detail (what each stage writes: shared/runtime/ledger.py's submission outcome, the extractor's
 * "14 pages, 0 by OCR", the cleaner's lines removed, the indexer's "22 chunks") in Portuguese; a stop's reason as
 * reasonText() says it; null for what this page does not know.
 */
export function historyText(detail: string | null | undefined): string | null {
  if (!detail) return null;
  if (detail in SUBMISSION_DETAILS) return SUBMISSION_DETAILS[detail]!;
  let m = /^(\d+) pages, (\d+) by OCR$/.exec(detail);
  if (m) {
    const read = Number(m[2]);
    return `${count(m[1], "página", "páginas")}, ${read === 0 ? "nenhuma lida" : read === 1 ? "1 lida" : `${m[2]} lidas`} da imagem`;
  }
  m = /^(\d+) header\/footer lines and (\d+) stamp lines removed, (\d+) OCR corrections(?:; signed (.+))?$/.exec(detail);
  if (m) {
    const removed = `${count(m[1], "linha", "linhas")} de cabeçalho/rodapé e ${m[2]} de carimbo removidas`;
    const signed = m[4] ? `; assinado em ${m[4].split(", ").map((d) => d.split("-").reverse().join("/")).join(", ")}` : "";
    return `${removed}, ${count(m[3], "correção", "correções")} de leitura${signed}`;
  }
  m = /^(\d+) chunks$/.exec(detail);
  if (m) return count(m[1], "trecho", "trechos");
  return reasonText(detail);
}

/** The characters of text a reviewer's approval would index, and on how many pages (of all). */
export function indexableText(pages: { text: string }[]): { pages: number; withText: number; characters: number } {
  const withText = pages.filter((p) => p.text.trim().length > 0);
  return {
    pages: pages.length,
    withText: withText.length,
    characters: withText.reduce((n, p) => n + p.text.trim().length, 0),
  };
}

/** "3", "3 e 24", "3, 7 e 24": page numbers as a sentence says them. */
export function pageList(pages: (number | string)[]): string {
  const names = pages.map(String);
  return names.length <= 1 ? (names[0] ?? "") : `${names.slice(0, -1).join(", ")} e ${names[names.length - 1]}`;
}

/** "Página com leitura fraca: 24", "Páginas com leitura fraca: 3 e 24"; "" for none. Reported (issue 36):
 * "Páginas fracas: 24" read as a count of 24 pages, not as page 24. */
export function weakPagesText(pages: (number | string)[]): string {
  if (pages.length === 0) return "";
  return `${pages.length === 1 ? "Página" : "Páginas"} com leitura fraca: ${pageList(pages)}`;
}

/** The word that agrees with a count: agree(1, "a", "as") is "a", agree(2, "a", "as") "as" (shared/wording.py). */
export function agree(n: number, one: string, many: string): string {
  return n === 1 ? one : many;
}

/** "1 página", "3 páginas"; "1.234 caracteres" (Brazilian thousands). */
export function plural(n: number, one: string, many: string): string {
  return `${n.toLocaleString("pt-BR")} ${agree(n, one, many)}`;
}

/** The review queue per reason, one row each, as GET /status's review_queue counts it (GET /review's rule, the
 * filter "Aguardando revisão"'s too), the documents indexed with unread pages as "2 documentos (5 páginas)". An
 * older API without review_queue gives the review stage's reasons and the unread row. Reported (issue 36): the
 * box counted 1 where the filter, by stage alone, found none. */
export function reviewReasonRows(status: {
  review_reasons: Record<string, number>;
  unread_pages?: { documents: number; pages: number };
  review_queue?: Record<string, number>;
}): [string, string][] {
  const unread = status.unread_pages;
  const unreadText = (documents: number) =>
    `${plural(documents, "documento", "documentos")}${unread ? ` (${plural(unread.pages, "página", "páginas")})` : ""}`;
  if (status.review_queue) {
    return Object.entries(status.review_queue).map(([code, n]): [string, string] => [
      code,
      code === "unread_pages" ? unreadText(n) : n.toLocaleString("pt-BR"),
    ]);
  }
  const rows = Object.entries(status.review_reasons).map(([code, n]): [string, string] => [code, n.toLocaleString("pt-BR")]);
  if (unread && unread.documents > 0) rows.push(["unread_pages", unreadText(unread.documents)]);
  return rows;
}

/** The review stage in the count of documents per stage: held out of the search for a reviewer. Not "Aguardando
 * revisão", which names the whole queue (also documents indexed without a page, or that could not be read), so
 * the two counts never carry one name with two numbers. */
export function stageCountLabel(stage: string): string {
  return stage === "review" ? "Retidos para revisão (fora da busca)" : stageLabel(stage);
}
