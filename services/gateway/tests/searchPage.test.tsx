import { renderToStaticMarkup } from "react-dom/server";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { POST as proxyPost } from "../app/api/[...path]/route";
import { NO_STRONG_MATCH, Results, SearchPage, statusMessage } from "../components/SearchPage";
import type { SearchRequestBody, SearchResponse, SearchResult } from "../lib/types";
import { EMPTY_STATE } from "../lib/urlState";
import { type FakeApi, STRONG_RESULT, searchApi, startFakeApi, WEAK_RESULT } from "./fakeApi";

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

describe("<Results> and the status line", () => {
  it("counts works (the API's total), not passages", () => {
    expect(statusMessage("done", 12, 5)).toBe("12 decisões/documentos encontrados.");
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
    expect(html.indexOf("no-strong-match")).toBeLessThan(html.indexOf('<ol class="result-list">'));
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
    const more = renderToStaticMarkup(<Results results={[STRONG_RESULT]} noStrongMatch={false} onMore={() => undefined} />);
    expect(more).toContain('<button type="button" class="more">Mostrar mais resultados</button>');
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
    expect(statusMessage("done", body.total ?? 0, body.results.length)).toBe("2 decisões/documentos encontrados.");
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
