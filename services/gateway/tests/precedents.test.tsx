import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { Filters } from "../components/Filters";
import { ResultCard } from "../components/ResultCard";
import { appliedLine, leadingBadges, QUALIFIED_KIND_LABELS } from "../lib/precedents";
import type { QualifiedPrecedent, SearchResult } from "../lib/types";
import { apiFilters, EMPTY_STATE, paramsFromState, stateFromParams } from "../lib/urlState";
import { STRONG_RESULT } from "./fakeApi";

const TEMA_793: QualifiedPrecedent = {
  kind: "repercussao_geral",
  court: "STF",
  number: "793",
  role: "is",
  label: "Repercussão geral – Tema 793",
};
const applies = (label: string): QualifiedPrecedent => ({ kind: "sumula", court: "STJ", number: "7", role: "applies", label });
const LEADING: SearchResult = {
  ...STRONG_RESULT,
  citation: "STF, ED no RE 855.178/SE (Tema 793, repercussão geral)",
  qualified_precedents: [TEMA_793, applies("Súmula 7/STJ"), applies("Súmula vinculante 25")],
};
const render = (result: SearchResult) => renderToStaticMarkup(<ResultCard result={result} position={1} />);

describe("qualified precedents on the card", () => {
  it("shows what the work is as a badge beside its court, and what it applies as a fact", () => {
    const html = render(LEADING);
    expect(html).toContain(
      '<span class="tag precedent-badge" title="Precedente qualificado (CPC, art. 927)">Repercussão geral – Tema 793</span>',
    );
    expect(html).toContain("<dt>Aplica</dt><dd>Súmula 7/STJ; Súmula vinculante 25</dd>");
    expect(html).toContain("(Tema 793, repercussão geral)</h2>");
  });

  it("shows no badge and no 'Aplica' for a work that is and applies none", () => {
    const html = render({ ...STRONG_RESULT, qualified_precedents: [] });
    expect(html).not.toContain("precedent-badge");
    expect(html).not.toContain("<dt>Aplica</dt>");
    expect(render(STRONG_RESULT)).not.toContain("precedent-badge"); // an older API without the field
  });

  it("lists a few precedents applied, then how many more, each once", () => {
    const many = ["A", "B", "C", "D", "E", "F", "A"].map(applies);
    expect(appliedLine(many)).toBe("A; B; C; D e mais 2");
    expect(leadingBadges([TEMA_793, TEMA_793, ...many])).toEqual(["Repercussão geral – Tema 793"]);
    expect(appliedLine(undefined)).toBe("");
  });
});

describe("the filter 'Precedente qualificado'", () => {
  it("offers the kinds the search counted, labelled, and sends the ticked ones to the API", () => {
    const html = renderToStaticMarkup(
      <Filters
        state={{ ...EMPTY_STATE, qualified: ["repercussao_geral"] }}
        facets={{ qualified_precedent: { repercussao_geral: 1, repetitivo: 2 } }}
        labels={{ document_type: {}, document_subtype: {}, court: {} }}
        onChange={() => undefined}
        onClear={() => undefined}
      />,
    );
    expect(html).toContain("<legend>Precedente qualificado</legend>");
    expect(html).toContain("Repercussão geral");
    expect(html).toContain("Repetitivo");
    const state = stateFromParams(new URLSearchParams("q=saude&precedente=repercussao_geral"));
    expect(state.qualified).toEqual(["repercussao_geral"]);
    expect(apiFilters(state).qualified_precedent).toEqual(["repercussao_geral"]);
    expect(paramsFromState(state).toString()).toBe("q=saude&precedente=repercussao_geral");
  });

  it("labels every kind as the Python vocabulary does (shared/legal/precedents.py KIND_LABELS)", () => {
    const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
    const source = readFileSync(path.join(repo, "shared", "legal", "precedents.py"), "utf8");
    const block = /KIND_LABELS = \{([^}]*)\}/.exec(source)?.[1] ?? "";
    const declared = Object.fromEntries([...block.matchAll(/"([a-z_]+)": "([^"]+)"/g)].map((m) => [m[1], m[2]]));
    expect(Object.keys(declared).length).toBeGreaterThan(5);
    expect(QUALIFIED_KIND_LABELS).toEqual(declared);
  });
});

describe("'Citado por' on the card", () => {
  const citing = (n: number) => ({
    document_id: `d${n}`,
    title: `Parecer ${n}`,
    citation: n === 1 ? "STF, ED no RE 855.178/SE (Tema 793, repercussão geral)" : null,
    document_url: `/documents/d${n}`,
  });

  it("says how many works of the base cite it and links them, the citation as their name", () => {
    const html = render({ ...STRONG_RESULT, cited_by_count: 1, cited_by: [citing(1)] });
    expect(html).toContain("<summary>Citado por 1 documento do acervo</summary>");
    expect(html).toContain('href="/api/documents/d1"');
    expect(html).toContain(">STF, ED no RE 855.178/SE (Tema 793, repercussão geral)<");
    expect(html).not.toContain("cited-by-more");
  });

  it("names a citing document without a citation by its title, and says how many were not listed", () => {
    const html = render({ ...STRONG_RESULT, cited_by_count: 7, cited_by: [2, 3, 4, 5, 6].map(citing) });
    expect(html).toContain("<summary>Citado por 7 documentos do acervo</summary>");
    expect(html).toContain(">Parecer 2<");
    expect(html).toContain('<p class="cited-by-more">e mais 2 não listados</p>');
  });

  it("says nothing when nothing in the base cites it", () => {
    expect(render({ ...STRONG_RESULT, cited_by_count: 0, cited_by: [] })).not.toContain("Citado por");
    expect(render(STRONG_RESULT)).not.toContain("Citado por");
  });

  it("lists the decisions of the base the work cites, and nothing when it cites none", () => {
    const html = render({ ...STRONG_RESULT, cites: [citing(1)] });
    expect(html).toContain("<summary>Cita 1 decisão do acervo</summary>");
    expect(html).toContain('href="/api/documents/d1"');
    expect(render({ ...STRONG_RESULT, cites: [citing(1), citing(2)] })).toContain("Cita 2 decisões do acervo");
    expect(render({ ...STRONG_RESULT, cites: [] })).not.toContain("do acervo");
  });
});
