import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { SearchPage } from "../components/SearchPage";
import { EMPTY_STATE } from "../lib/urlState";

describe("<SearchPage> as the server sends it", () => {
  const html = renderToStaticMarkup(
    <SearchPage initial={{ ...EMPTY_STATE, q: "dano moral <b>coletivo</b>", court: "tjsp", from: "2020-01-01" }} />,
  );

  it("has one labelled search field holding the URL's query, escaped", () => {
    expect(html).toContain('role="search"');
    expect(html).toContain('<label for="consulta" class="visually-hidden">O que você procura?</label>');
    expect(html).toContain('value="dano moral &lt;b&gt;coletivo&lt;/b&gt;"');
    expect(html).not.toContain("<b>coletivo</b>");
  });

  it("restores the filters from the URL", () => {
    expect(html).toContain('<option value="tjsp" selected="">TJSP</option>');
    expect(html).toContain('id="filtro-de" type="date" value="2020-01-01"');
  });

  it("announces loading and results in a live region", () => {
    expect(html).toMatch(/<p class="status" role="status" aria-live="polite"[^>]*><\/p>/);
  });
});
