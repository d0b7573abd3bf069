import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { IngestionPanel, RefusedMessageList } from "../components/IngestionPanel";
import { approvalSummary, REREAD_RESOLUTIONS, ReviewQueuePage, weakPagesCell } from "../components/ReviewQueuePage";
import { Counts } from "../components/StatusCounts";
import { accessGroupsField, listQuery, STATE_FILTERS } from "../lib/documents";
import { menuFor, may, parseIdentity } from "../lib/identity";
import {
  historyText,
  indexableText,
  REASON_LABELS,
  reasonLabel,
  reasonText,
  reviewReasonRows,
  SERVICE_LABELS,
  STAGE_LABELS,
  STAGE_ORDER,
  stageCountLabel,
  stateLabel,
  UPLOAD_OUTCOMES,
  weakPagesText,
} from "../lib/labels";

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

function pythonFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return name === "gateway" || name.startsWith(".") ? [] : pythonFiles(full);
    return name.endsWith(".py") ? [full] : [];
  });
}

/** Every reason code the Python side can record: code="..." / code = "..." literals, and constants used as codes. */
function reasonCodes(): Set<string> {
  const codes = new Set<string>();
  for (const file of [...pythonFiles(path.join(REPO, "shared")), ...pythonFiles(path.join(REPO, "services"))]) {
    const text = readFileSync(file, "utf8");
    for (const m of text.matchAll(/\bcode(?:: str)? ?= ?"([a-z_]+)"/g)) codes.add(m[1]!);
    for (const m of text.matchAll(/"reason_code": "([a-z_]+)"/g)) codes.add(m[1]!);
    for (const m of text.matchAll(/\bcode = "([a-z_]+)" if .* else "([a-z_]+)"/g)) codes.add(m[1]!).add(m[2]!);
    for (const m of text.matchAll(/ToDeadLetter\([^)]*?, "([a-z_]+)"\)/g)) codes.add(m[1]!);
    for (const m of text.matchAll(/_to_deadletter\(\s*service, ctx, event, [a-z]+, "([a-z_]+)"/g)) codes.add(m[1]!);
  }
  const formats = readFileSync(path.join(REPO, "shared", "formats.py"), "utf8");
  for (const m of formats.matchAll(/^(?:UNSUPPORTED|PASSWORD) = "([a-z_]+)"/gm)) codes.add(m[1]!);
  const outbox = readFileSync(path.join(REPO, "shared", "runtime", "outbox.py"), "utf8");
  for (const m of outbox.matchAll(/^(?:PUBLISHING|UNPUBLISHED) = "([a-z_]+)"/gm)) codes.add(m[1]!);
  return codes;
}

describe("labels: every code the API sends has Portuguese words", () => {
  it("every ledger stage of shared/contracts.py", () => {
    const contracts = readFileSync(path.join(REPO, "shared", "contracts.py"), "utf8");
    const block = /class Stage\(StrEnum\):\n\s+"""[^"]*"""\n([\s\S]*?)\n\n/.exec(contracts)?.[1] ?? "";
    const stages = [...block.matchAll(/= "([a-z_]+)"/g)].map((m) => m[1]);
    expect(stages.length).toBeGreaterThanOrEqual(9);
    for (const stage of stages) expect(STAGE_LABELS, stage).toHaveProperty(stage!);
    expect([...STAGE_ORDER].sort()).toEqual([...stages].sort());
  });

  it("every pipeline service of shared/runtime/pipeline.py (halted_in)", () => {
    const pipeline = readFileSync(path.join(REPO, "shared", "runtime", "pipeline.py"), "utf8");
    const names = [...pipeline.matchAll(/PipelineStage\(\s*"([a-z]+)"/g)].map((m) => m[1]);
    expect(names).toEqual(["extractor", "cleaner", "chunker", "annotator", "indexer"]);
    for (const name of names) expect(SERVICE_LABELS, name).toHaveProperty(name!);
  });

  it("every reason code of the extractor, the stages, the indexer, the review and the outbox", () => {
    const codes = reasonCodes();
    for (const known of ["low_ocr_confidence", "password_protected", "no_text", "rejected", "unsupported_format", "unpublished"]) {
      expect(codes).toContain(known);
    }
    const missing = [...codes].filter((code) => !(code in REASON_LABELS));
    expect(missing).toEqual([]);
    expect(reasonLabel(null)).toBe("Outro motivo");
    expect(reasonLabel("algo_novo")).toBe("Algo novo"); // an unknown code still reads as words
  });

  it("a stopped document's state in one phrase, never a code", () => {
    expect(stateLabel("review", "extractor")).toBe("Aguardando revisão (parado na extração do texto)");
    expect(stateLabel("failed", "review")).toBe("Rejeitado na revisão");
    expect(stateLabel("failed", "indexer")).toBe("Não processado (parado na indexação)");
    expect(stateLabel("indexed", null)).toBe("Indexado");
    for (const label of Object.values(STAGE_LABELS)) expect(label).not.toMatch(/_|review|failed/);
  });

  it("the extractor's English reasons in Portuguese", () => {
    expect(
      reasonText(
        "OCR confidence 0.55 is below the bar of 0.70 (weak pages: 1, 3); check the scan or correct the text",
      ),
    ).toBe("Confiança da leitura da imagem de 55%, abaixo do mínimo de 70%; páginas com leitura fraca: 1 e 3.");
    expect(reasonText("extractor: OCR confidence 0.40 is below the bar of 0.70 (weak pages: none individually)")).toBe(
      "Confiança da leitura da imagem de 40%, abaixo do mínimo de 70%.",
    );
    expect(
      reasonText("OCR confidence of 1 page(s) is far below the bar of 0.70 (page 2: 0.30); check the scan"),
    ).toBe("Confiança da leitura muito abaixo do mínimo de 70% em 1 página (página 2: 30%).");
    expect(reasonText("OCR failed on 1 page(s) (page 4: timeout); their text is missing")).toBe(
      "A leitura da imagem falhou em 1 página: o texto dela está faltando.",
    );
    expect(reasonText("OCR failed on 3 page(s) (pages 4-6: timeout); their text is missing")).toBe(
      "A leitura da imagem falhou em 3 páginas: o texto delas está faltando.",
    );
    expect(reasonText("page 2 left out of the index, the other 1 indexed: page 2 was read by OCR at 0.41")).toBe(
      "Página 2 fora do índice (sem texto legível ou leitura fraca); a outra está indexada.",
    );
    expect(
      reasonText(
        "pages 2 and 8 left out of the index, the other 45 indexed: pages 2 and 8 hold images with no readable text",
      ),
    ).toBe("Páginas 2 e 8 fora do índice (sem texto legível ou leitura fraca); as outras 45 estão indexadas.");
    expect(reasonText("page 7 left out of the index, the other 11 indexed: page 7 was read by OCR at 0.41")).toBe(
      "Página 7 fora do índice (sem texto legível ou leitura fraca); as outras 11 estão indexadas.",
    );
    expect(reasonText("rejected by ana: digitalização ilegível")).toBe("Rejeitado por ana: digitalização ilegível");
    expect(reasonText("approved by ana")).toBe("Aprovado por ana");
    expect(reasonText("something new")).toBeNull();
    expect(historyText("new")).toBe("");
    expect(historyText("new_version")).toBe("nova versão");
    expect(historyText("14 pages, 0 by OCR")).toBe("14 páginas, nenhuma lida da imagem");
    expect(historyText("2 pages, 1 by OCR")).toBe("2 páginas, 1 lida da imagem");
    expect(historyText("2 pages, 2 by OCR")).toBe("2 páginas, 2 lidas da imagem");
    expect(historyText("3 header/footer lines and 1 stamp lines removed, 4 OCR corrections; signed 2024-05-02")).toBe(
      "3 linhas de cabeçalho/rodapé e 1 de carimbo removidas, 4 correções de leitura; assinado em 02/05/2024",
    );
    expect(historyText("22 chunks")).toBe("22 trechos");
    expect(historyText("extractor: OCR confidence 0.55 is below the bar of 0.85")).toBe(
      "Confiança da leitura da imagem de 55%, abaixo do mínimo de 85%.",
    );
    expect(historyText("annotated by a model nobody knows")).toBeNull();
    expect(UPLOAD_OUTCOMES).toHaveProperty("new");
    expect(UPLOAD_OUTCOMES).toHaveProperty("duplicate");
  });
});

describe("menus show only what the person may do", () => {
  const me = (extra: Record<string, unknown>) =>
    parseIdentity({ user: "x", kind: "user", groups: [], roles: [], scopes: [], auth_mode: "required", ...extra });

  it("takes /auth/me's permissions", () => {
    const lawyer = me({ permissions: ["ingest", "search"] });
    expect(menuFor(lawyer).map((e) => e.label)).toEqual(["Pesquisa", "Pastas", "Pesquisas salvas", "Histórico", "Ingestão"]);
    expect(may(lawyer, "review")).toBe(false);
    const reviewer = me({ roles: ["reviewer"], permissions: ["ingest", "review", "search"] });
    expect(menuFor(reviewer).map((e) => e.label)).toEqual(["Pesquisa", "Pastas", "Pesquisas salvas", "Histórico", "Ingestão", "Revisão"]);
    const searchKey = me({ kind: "key", scopes: ["search"], permissions: ["search"] });
    expect(menuFor(searchKey).map((e) => e.label)).toEqual(["Pesquisa", "Pastas", "Pesquisas salvas", "Histórico"]);
    expect(menuFor(null)).toEqual([]);
  });

  it("works out the permissions as the API does when /auth/me does not list them", () => {
    expect(me({})?.permissions).toEqual(["search", "ingest"]);
    expect(me({ roles: ["reviewer"] })?.permissions).toContain("review");
    expect(me({ roles: ["admin"] })?.permissions).toEqual(["search", "ingest", "review", "admin"]);
    expect(me({ kind: "key", scopes: ["review"] })?.permissions).toEqual(["review"]);
    expect(me({ kind: "anonymous" })?.permissions).toContain("review"); // demo mode reviews
  });
});

describe("the list of documents and the upload", () => {
  it("asks GET /documents for the search box, the state and the page", () => {
    expect(listQuery("", "", 0)).toBe("/documents?limit=20");
    expect(listQuery("  acórdão  ", "indexado", 40)).toBe("/documents?q=ac%C3%B3rd%C3%A3o&stage=indexed&limit=20&offset=40");
    // "Aguardando revisão" is the review queue's rule, not the review stage: GET /status's review_queue counts it
    expect(listQuery("", "revisao", 0)).toBe("/documents?awaiting_review=true&limit=20");
    const going = listQuery("", "andamento", 0);
    expect(new URLSearchParams(going.split("?")[1]).getAll("stage")).toEqual([
      "submitted",
      "extracted",
      "cleaned",
      "chunked",
      "annotated",
    ]);
    for (const filter of STATE_FILTERS) for (const stage of filter.stages) expect(STAGE_LABELS).toHaveProperty(stage);
  });

  it("sends the access groups chosen, everyone when none", () => {
    expect(accessGroupsField([], "")).toBe("*");
    expect(accessGroupsField(["socios"], "contencioso, socios ;tributario")).toBe("socios,contencioso,tributario");
    expect(accessGroupsField(["*", "socios"], "")).toBe("*,socios");
  });

  it("offers the upload with the person's groups only to who may upload", () => {
    const html = renderToStaticMarkup(<IngestionPanel groups={["socios"]} mayUpload mayReview={false} />);
    expect(html).toContain("Enviar documentos");
    expect(html).toContain('type="file"');
    expect(html).toContain("Grupo socios");
    expect(html).toContain('id="busca-documento"');
    for (const filter of STATE_FILTERS) expect(html).toContain(`>${filter.label}</option>`);
    const reader = renderToStaticMarkup(<IngestionPanel groups={[]} mayUpload={false} mayReview={false} />);
    expect(reader).not.toContain("Enviar documentos");
  });

  it("shows the refused messages to administrators only (GET /refused-messages is theirs)", () => {
    const admin = renderToStaticMarkup(<IngestionPanel groups={[]} mayUpload mayReview mayAdminister />);
    expect(admin).toContain("Mensagens recusadas");
    const reviewer = renderToStaticMarkup(<IngestionPanel groups={[]} mayUpload mayReview />);
    expect(reviewer).not.toContain("Mensagens recusadas");
  });
});

describe("the refused messages (GET /refused-messages)", () => {
  const nameless = {
    at: "2026-12-03T22:15:49Z",
    consumer: "extractor",
    topic: "documents.submitted",
    reason: "the message is JSON an array; no document id in it or in its key",
    message_start: "b'[\"a\", \"b\"]'",
    document_id: null,
  };
  const known = { ...nameless, reason: "'size_bytes': Input should be a valid integer", document_id: "0b6e2c7a-1111-4e5f-9a3b-2c1d0e9f8a7b" };

  it("says which name no document, with their reason and start as they came", () => {
    const html = renderToStaticMarkup(
      <RefusedMessageList page={{ total: 45, kept_at_most: 10000, messages: [nameless, known] }} offset={20} />,
    );
    expect(html).toContain("45 mensagens recusadas guardadas; mostrando 21–22");
    expect(html).toContain("10.000 mais recentes");
    expect(html).toContain("extractor recusou uma mensagem de <code>documents.submitted</code> que não diz de qual documento é");
    expect(html).toContain("the message is JSON an array");
    expect(html).toContain("b&#x27;[&quot;a&quot;, &quot;b&quot;]&#x27;");
    expect(html).toContain(`sobre o documento <code>${known.document_id}</code>`);
    expect(html.match(/<li>/g)).toHaveLength(2);
  });

  it("says when there are none", () => {
    const html = renderToStaticMarkup(<RefusedMessageList page={{ total: 0, kept_at_most: 10000, messages: [] }} offset={0} />);
    expect(html).toContain("Nenhuma mensagem recusada.");
  });
});

describe("approving says what will be indexed", () => {
  const page = (number: number, text: string) => ({ number, text, method: "ocr", confidence: 0.5, image_url: null });

  it("counts the pages with text and their characters", () => {
    expect(indexableText([page(1, "  abc "), page(2, ""), page(3, "de")])).toEqual({ pages: 3, withText: 2, characters: 5 });
    const summary = approvalSummary({ pages: [page(1, "“. Corel “e"), page(2, " ")], ocr_confidence: 0.31, weak_pages: [1] });
    expect(summary).toBe(
      "Será indexado o texto de 1 de 2 páginas (as demais estão sem texto): 11 caracteres, como está abaixo." +
        " Confiança da leitura da imagem: 31%. Página com leitura fraca: 1.",
    );
    expect(approvalSummary({ pages: [page(1, "x".repeat(1234))], ocr_confidence: null, weak_pages: [] })).toBe(
      "Será indexado o texto de 1 página: 1.234 caracteres, como está abaixo.",
    );
  });

  it("has nothing to approve without text (a locked PDF, an empty scan)", () => {
    expect(approvalSummary({ pages: [], ocr_confidence: null, weak_pages: [] })).toBeNull();
    expect(approvalSummary({ pages: [page(1, "  \n ")], ocr_confidence: 0, weak_pages: [1] })).toBeNull();
  });
});

describe("the ingestion page's review counts (GET /status)", () => {
  const box = (status: Parameters<typeof reviewReasonRows>[0]) =>
    renderToStaticMarkup(<Counts title="Aguardando revisão, por motivo" counts={reviewReasonRows(status)} label={reasonLabel} />);

  it("lists the documents indexed with unread pages as their own line, with their pages", () => {
    const html = box({ review_reasons: { low_ocr_confidence: 2 }, unread_pages: { documents: 3, pages: 5 } });
    expect(html).toContain("<dt>Leitura da imagem pouco confiável</dt><dd>2</dd>");
    expect(html).toContain("<dt>Indexado sem algumas páginas</dt><dd>3 documentos (5 páginas)</dd>");
    expect(html.indexOf("pouco confiável")).toBeLessThan(html.indexOf("sem algumas páginas"));
    expect(box({ review_reasons: {}, unread_pages: { documents: 1, pages: 1 } })).toContain(
      "<dd>1 documento (1 página)</dd>",
    );
  });

  it("shows no such line when none, or when an older API does not send the count", () => {
    expect(box({ review_reasons: {}, unread_pages: { documents: 0, pages: 0 } })).toContain("<p>Nenhum.</p>");
    expect(reviewReasonRows({ review_reasons: { needs_review: 1 } })).toEqual([["needs_review", "1"]]);
  });
});

describe("the review queue and the ingestion counts agree (issue 36)", () => {
  it("counts by the queue's rule when the API sends it: the unread row with its pages, the same documents the filter lists", () => {
    const rows = reviewReasonRows({
      review_reasons: {},
      unread_pages: { documents: 1, pages: 1 },
      review_queue: { unread_pages: 1, low_ocr_confidence: 2 },
    });
    expect(rows).toEqual([
      ["unread_pages", "1 documento (1 página)"],
      ["low_ocr_confidence", "2"],
    ]);
    const html = renderToStaticMarkup(
      <Counts title="Aguardando revisão, por motivo" counts={rows} label={reasonLabel} note="o filtro lista os mesmos" />,
    );
    expect(html).toContain("<dt>Indexado sem algumas páginas</dt><dd>1 documento (1 página)</dd>");
    expect(html).toContain("o filtro lista os mesmos");
    // the stage count names the review stage otherwise, so one name never carries two numbers
    expect(stageCountLabel("review")).not.toBe(STATE_FILTERS.find((f) => f.value === "revisao")?.label);
    expect(stageCountLabel("indexed")).toBe("Indexado");
  });
});

describe("the review page in plain words (issue 36)", () => {
  it("says the weak pages are page numbers", () => {
    expect(weakPagesText([24])).toBe("Página com leitura fraca: 24");
    expect(weakPagesText([3, 24])).toBe("Páginas com leitura fraca: 3 e 24");
    expect(weakPagesText([3, 7, 24])).toBe("Páginas com leitura fraca: 3, 7 e 24");
    expect(weakPagesText([])).toBe("");
    expect(weakPagesCell([24])).toBe("Página 24");
    expect(weakPagesCell([3, 24])).toBe("Páginas 3 e 24");
    expect(weakPagesCell([])).toBe("—");
  });

  it("offers a new reading in words, not OCR and dpi", () => {
    const html = renderToStaticMarkup(<ReviewQueuePage selectedId={null} />);
    expect(html).not.toMatch(/OCR|dpi|Páginas fracas/);
    expect(REREAD_RESOLUTIONS.map((r) => r.dpi)).toEqual([300, 400, 600]);
    for (const r of REREAD_RESOLUTIONS) expect(r.label).not.toMatch(/dpi|\d/);
    for (const hint of Object.values(REASON_LABELS)) expect(hint).not.toMatch(/\bOCR\b/);
  });
});
