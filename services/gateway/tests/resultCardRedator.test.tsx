import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { ResultCard } from "../components/ResultCard";
import type { SearchResult } from "../lib/types";
import { STRONG_RESULT, WEAK_RESULT } from "./fakeApi";

const render = (result: SearchResult) => renderToStaticMarkup(<ResultCard result={result} position={1} weak={false} />);

describe("<ResultCard> and the redator do acórdão", () => {
  it("shows the redator beside the relator when the API gives one", () => {
    const html = render({ ...STRONG_RESULT, relator: "Marco Aurélio", redator: "Roberto Barroso" });
    expect(html).toContain(
      "<dt>Relator(a)</dt><dd>Marco Aurélio</dd></div><div><dt>Redator(a) p/ o acórdão</dt><dd>Roberto Barroso</dd>",
    );
  });

  it("names a judge who decided alone Juiz(a), not Relator(a), as the citation does", () => {
    const html = render({ ...STRONG_RESULT, relator: "Larissa Gaspar Tunala", redator: null, judged_alone: true });
    expect(html).toContain("<dt>Juiz(a)</dt><dd>Larissa Gaspar Tunala</dd>");
    expect(html).not.toContain("Relator(a)");
  });

  it("says nothing of a redator when there is none", () => {
    for (const redator of [undefined, null, ""]) {
      expect(render({ ...STRONG_RESULT, redator })).not.toContain("Redator");
    }
  });

  it("shows the facts list for a redator alone", () => {
    expect(render(WEAK_RESULT)).not.toContain("<dl");
    expect(render({ ...WEAK_RESULT, redator: "Edson Fachin" })).toContain(
      '<dl class="result-facts"><div><dt>Redator(a) p/ o acórdão</dt><dd>Edson Fachin</dd></div></dl>',
    );
  });
});
