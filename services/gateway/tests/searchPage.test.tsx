import { renderToStaticMarkup } from "react-dom/server";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { POST as proxyPost } from "../app/api/[...path]/route";
import { NO_STRONG_MATCH, Pager, pagerPages, Results, SearchPage, statusMessage } from "../components/SearchPage";
import type { SearchRequestBody, SearchResponse, SearchResult } from "../lib/types";
import { EMPTY_STATE } from "../lib/urlState";
import { type FakeApi, STRONG_RESULT, searchApi, startFakeApi, WEAK_RESULT } from "./fakeApi";

describe("<SearchPage> as the server sends it", () => {
  const html = renderToStaticMarkup(
    <SearchPage
      initial={{ ...EMPTY_STATE, q: "dano moral <b>coletivo</b>", court: ["tjsp"], from: "2020-01-01", sort: "date" }}
    />,
  );

  it("has one labelled search field holding the URL's query, escaped", () => {
    expect(html).toContain('role="search"');
    expect(html).toContain('<label for="consulta" class="visually-hidden">O que você procura?</label>');
    expect(html).toContain('value="dano moral &lt;b&gt;coletivo&lt;/b&gt;"');
    expect(html).not.toContain("<b>coletivo</b>");
  });

  it("says on the search field that the courts' operators and fields work", () => {
    expect(html).toContain('title="Também os operadores dos tribunais: &quot;frase exata&quot;, OU, NÃO, ADJ2, PROX3, MESMO e campos como ementa:, relator:, tribunal:"');
  });

  it("restores the filters and the order from the URL", () => {
    expect(html).toMatch(/<input type="checkbox" id="filtro-tribunal-0" checked="" value="tjsp"\/><label for="filtro-tribunal-0"><span class="facet-label">TJSP<\/span><\/label>/);
    expect(html).toContain('id="filtro-de" type="date" min="1800-01-01" value="2020-01-01"');
    expect(html).toContain('<option value="date" selected="">Data (mais recentes)</option>');
  });

  it("puts at most three Tab stops between the query and the first result: the filters come after the results", () => {
    const between = html.slice(html.indexOf('id="consulta"'), html.indexOf('id="painel-filtros"'));
    const stops = between.match(/<(button|select|a |input)/g) ?? [];
    expect(stops).toEqual(["<button", "<button", "<select"]); // Pesquisar, Filtros (hidden on wide screens), order
    expect(html).toContain('aria-controls="painel-filtros"');
    expect(html).toContain('aria-expanded="false"');
    expect(html).toContain("Filtros (2)");
  });

  it("announces loading and results in a live region", () => {
    expect(html).toMatch(/<p class="status" role="status" aria-live="polite"[^>]*><\/p>/);
  });
});

describe("<Results> and the status line", () => {
  it("counts works (the API's total), not passages, and says which of them a page shows", () => {
    expect(statusMessage("done", 12, 5)).toBe("12 decisões/documentos encontrados; mostrando 1–5.");
    expect(statusMessage("done", 5, 5)).toBe("5 decisões/documentos encontrados.");
    expect(statusMessage("done", 37, 10, 10)).toBe("37 decisões/documentos encontrados; mostrando 11–20.");
    expect(statusMessage("done", 37, 0, 40)).toBe("Não há mais resultados nesta página.");
    expect(statusMessage("done", 1, 1)).toBe("1 decisão/documento encontrado.");
    expect(statusMessage("done", 0, 0)).toMatch(/^Nenhuma decisão ou documento encontrado\./);
    expect(statusMessage("loading", 12, 5)).toBe("Pesquisando…");
    expect(statusMessage("idle", 0, 0)).toBe("");
    expect(statusMessage("done", 12, 5)).not.toMatch(/trecho/);
  });

  it("without a strong match: the plain warning above the results, every card weak", () => {
    const html = renderToStaticMarkup(<Results results={[STRONG_RESULT, WEAK_RESULT]} noStrongMatch={true} />);
    expect(html).toContain(`<p class="no-strong-match" role="note">${NO_STRONG_MATCH}</p>`);
    expect(NO_STRONG_MATCH).toBe(
      "Nada claramente relevante foi encontrado para esta consulta. Os resultados abaixo são apenas os mais próximos.",
    );
    expect(html.indexOf("no-strong-match")).toBeLessThan(html.indexOf('<ol class="result-list" start="1">'));
    expect(html.match(/Relevância fraca/g)).toHaveLength(2);
    expect(html).not.toContain("Relevância forte");
  });

  it("with a strong match: no warning, each card its own grade", () => {
    const html = renderToStaticMarkup(<Results results={[STRONG_RESULT, WEAK_RESULT]} noStrongMatch={false} />);
    expect(html).not.toContain("no-strong-match");
    expect(html).not.toContain("Nada claramente relevante");
    expect(html).toContain("Relevância forte");
    expect(html).toContain("Relevância fraca");
    expect(html).not.toContain("Mostrar mais resultados");
    const later = renderToStaticMarkup(<Results results={[STRONG_RESULT]} noStrongMatch={false} first={21} />);
    expect(later).toContain('<ol class="result-list" start="21">');
    expect(later).toContain('id="resultado-21"');
  });

  it("pages by links that keep the search in the URL, the current page marked", () => {
    const state = { ...EMPTY_STATE, q: "arbitragem", court: ["stj"], page: 3 };
    const html = renderToStaticMarkup(<Pager state={state} total={95} onPage={() => undefined} />);
    expect(html).toContain('<nav class="pager" aria-label="Páginas de resultados">');
    expect(html).toContain('href="/?q=arbitragem&amp;tribunal=stj&amp;pagina=2" rel="prev">‹ Anterior</a>');
    expect(html).toContain('href="/?q=arbitragem&amp;tribunal=stj&amp;pagina=4" rel="next">Próxima ›</a>');
    expect(html).toContain('<span aria-current="page" class="pager-current"><span class="visually-hidden">Página </span>3</span>');
    expect(html).toContain('href="/?q=arbitragem&amp;tribunal=stj">1</a>');
    expect(html).toContain('pagina=10">10</a>');
    expect(renderToStaticMarkup(<Pager state={state} total={10} onPage={() => undefined} />)).toBe("");
  });

  it("offers the first, the last and the pages around the current one", () => {
    expect(pagerPages(1, 1)).toEqual([1]);
    expect(pagerPages(1, 4)).toEqual([1, 2, 3, 4]);
    expect(pagerPages(6, 20)).toEqual([1, null, 4, 5, 6, 7, 8, null, 20]);
    expect(pagerPages(20, 20)).toEqual([1, null, 18, 19, 20]);
  });

  it("renders nothing without results", () => {
    expect(renderToStaticMarkup(<Results results={[]} noStrongMatch={true} />)).toBe("");
  });
});

describe("the search response through the gateway's /api proxy", () => {
  let api: FakeApi;
  beforeAll(async () => {
    api = await startFakeApi(() => ({ status: 500 }));
  });
  afterAll(async () => {
    await api.close();
  });
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  async function search(works: SearchResult[], body: SearchRequestBody): Promise<SearchResponse> {
    api.handle = searchApi(works);
    vi.stubEnv("PRECEDENTE_API_URL", api.url);
    const request = new Request("http://gw.test:3000/api/search", {
      method: "POST",
      headers: { host: "gw.test:3000", origin: "http://gw.test:3000", "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const response = await proxyPost(request, { params: Promise.resolve({ path: ["search"] }) });
    expect(response.status).toBe(200);
    return (await response.json()) as SearchResponse;
  }

  it("passes offset and sort on and shows the works it answers, counted by total", async () => {
    const body = await search([STRONG_RESULT, WEAK_RESULT], {
      query: "nulidade da cláusula arbitral",
      filters: {},
      top_k: 1,
      offset: 1,
      sort: "relevance",
    });
    expect(JSON.parse(api.seen.at(-1)!.body)).toMatchObject({ offset: 1, sort: "relevance", top_k: 1 });
    expect(body.results.map((r) => r.document_id)).toEqual([WEAK_RESULT.document_id]);
    expect(statusMessage("done", body.total ?? 0, body.results.length, 1)).toBe(
      "2 decisões/documentos encontrados; mostrando o 2º.",
    );
    expect(body.no_strong_match).toBe(false);
    const html = renderToStaticMarkup(<Results results={body.results} noStrongMatch={body.no_strong_match === true} />);
    expect(html).toContain("Relevância fraca");
    expect(html).not.toContain("Nada claramente relevante");
  });

  it("shows the warning when the API says nothing reached 'provável'", async () => {
    const body = await search([WEAK_RESULT], { query: "usucapião de bem público", filters: {}, top_k: 5 });
    expect(body.no_strong_match).toBe(true);
    expect(body.relevant_total).toBe(0);
    const html = renderToStaticMarkup(<Results results={body.results} noStrongMatch={body.no_strong_match === true} />);
    expect(html).toContain(NO_STRONG_MATCH);
    expect(html).toContain(`href="/api${WEAK_RESULT.document_url}"`);
  });
});
