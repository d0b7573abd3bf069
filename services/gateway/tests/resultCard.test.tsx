import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { facetOptions, Filters } from "../components/Filters";
import { ResultCard } from "../components/ResultCard";
import type { SearchResult } from "../lib/types";
import { EMPTY_STATE } from "../lib/urlState";

const RESULT: SearchResult = {
  chunk_text: "A sentença arbitral é nula quando proferida fora dos limites da convenção.",
  document_title: "Sentença — 1ª Vara Empresarial",
  document_date: "2019-03-07",
  document_type: "sentenca",
  document_type_label: "Sentença",
  court: "tjsp",
  court_label: "TJSP",
  relevance_explanation: "Trata da nulidade da sentença arbitral (termos: sentença, arbitral).",
  similarity_score: 0.81,
  page_number: 4,
  page_end: 5,
  section_path: "Fundamentação",
  document_id: "6f1c4f0e-6a9b-4f7e-9a51-0d7b8e3c1a22",
  highlights: [
    [2, 10],
    [11, 19],
  ],
};

describe("<ResultCard>", () => {
  const html = renderToStaticMarkup(<ResultCard result={RESULT} position={1} />);

  it("shows title, type, court, date, pages and section", () => {
    expect(html).toContain("Sentença — 1ª Vara Empresarial");
    expect(html).toContain('<span class="tag">Sentença</span>');
    expect(html).toContain('<span class="tag">TJSP</span>');
    expect(html).toContain("07/03/2019");
    expect(html).toContain("p. 4–5");
    expect(html).toContain("Fundamentação");
  });

  it("highlights the matched words and shows the explanation", () => {
    expect(html).toContain("<mark>sentença</mark>");
    expect(html).toContain("<mark>arbitral</mark>");
    expect(html).toContain("Por que é relevante: </span>Trata da nulidade");
  });

  it("links to the original through the gateway, at the passage's page", () => {
    expect(html).toContain(`href="/api/documents/${RESULT.document_id}#page=4"`);
    expect(html).toContain('target="_blank"');
    expect(html).toContain('rel="noopener noreferrer"');
    expect(html).toContain("Abrir o documento na página 4");
  });

  it("falls back to labels made from codes", () => {
    const bare = renderToStaticMarkup(
      <ResultCard
        result={{ ...RESULT, document_type_label: null, court_label: null, court: "tre_sp", section_path: null, page_end: 4 }}
        position={2}
      />,
    );
    expect(bare).toContain('<span class="tag">TRE-SP</span>');
    expect(bare).toContain('<span class="tag">Sentença</span>');
    expect(bare).not.toContain("p. 4–");
  });
});

describe("<Filters>", () => {
  it("lists facet values with their counts, the most frequent first", () => {
    expect(facetOptions({ stj: 2, tjsp: 5 }, "", (c) => c.toUpperCase())).toEqual([
      { value: "tjsp", label: "TJSP", count: 5 },
      { value: "stj", label: "STJ", count: 2 },
    ]);
  });

  it("keeps the selected value even when the search did not count it", () => {
    expect(facetOptions({}, "trf3", (c) => c)).toEqual([{ value: "trf3", label: "trf3" }]);
  });

  it("renders labelled selects with counts", () => {
    const html = renderToStaticMarkup(
      <Filters
        state={{ ...EMPTY_STATE, q: "x", court: "tjsp" }}
        facets={{ document_type: { sentenca: 3 }, court: { tjsp: 3 }, relator: { "Fulano de Tal": 1 } }}
        labels={{ document_type: {}, court: { tjsp: "TJSP" } }}
        onChange={() => undefined}
      />,
    );
    expect(html).toContain('<label for="filtro-tipo">Tipo de documento</label>');
    expect(html).toContain("Sentença (3)");
    expect(html).toContain('<option value="tjsp" selected="">TJSP (3)</option>');
    expect(html).toContain("Fulano de Tal (1)");
    expect(html).not.toContain("Órgão julgador"); // no facet values, nothing selected
  });
});
