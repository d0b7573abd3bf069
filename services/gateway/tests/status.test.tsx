import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { ResultCard } from "../components/ResultCard";
import type { SearchResult, StatusSignal } from "../lib/types";
import { STRONG_RESULT } from "./fakeApi";

const REVISED: StatusSignal = {
  kind: "revista",
  target: "Repetitivo – Tema 931",
  statement: "Repetitivo – Tema 931 revisto",
  sentence: "EXECUÇÃO PENAL. REVISÃO DE TESE. TEMA 931.",
  said_by: {
    document_id: "d-resp",
    title: "Recurso especial representativo de controvérsia",
    citation: "STJ, REsp 2.090.454/SP, Terceira Seção",
    document_type: "acordao",
    document_url: "/documents/d-resp",
  },
  said_by_count: 3,
};
const render = (result: SearchResult) => renderToStaticMarkup(<ResultCard result={result} position={1} />);

describe("status signals on the card", () => {
  it("warns what the base says, links the document that says it and quotes its sentence", () => {
    const html = render({ ...STRONG_RESULT, status_signals: [REVISED] });
    expect(html).toContain('<p class="status-signal" role="note"><strong>Segundo o acervo:</strong> Repetitivo – Tema 931 revisto — ver');
    expect(html).toMatch(/<a class="open-linked" href="[^"]*d-resp[^"]*" target="_blank" rel="noopener noreferrer">STJ, REsp 2\.090\.454\/SP, Terceira Seção/);
    expect(html).toContain(" e mais 2 documentos");
    expect(html).toContain('<q class="status-sentence">EXECUÇÃO PENAL. REVISÃO DE TESE. TEMA 931.</q>');
  });

  it("names the document by its title when it has no citation, and says nothing when the base says nothing", () => {
    const untitled = { ...REVISED, said_by: { ...REVISED.said_by, citation: null }, said_by_count: 1 };
    const html = render({ ...STRONG_RESULT, status_signals: [untitled] });
    expect(html).toContain(">Recurso especial representativo de controvérsia<");
    expect(html).not.toContain(" e mais ");
    expect(render({ ...STRONG_RESULT, status_signals: [] })).not.toContain("status-signal");
    expect(render(STRONG_RESULT)).not.toContain("Segundo o acervo"); // an older API without the field
  });
});
