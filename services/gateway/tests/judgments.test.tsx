// Judging results ("relevante" / "não relevante", issue #20) and "Mais como este" (issue #19): the card's controls
// as the server renders them, the requests the page makes, and both through the gateway's real /api proxy to a
// fake API that answers as services/search/routers/judgments.py and search.py do.
import { renderToStaticMarkup } from "react-dom/server";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { GET as proxyGet, POST as proxyPost } from "../app/api/[...path]/route";
import { ResultCard } from "../components/ResultCard";
import { NO_CLOSE_PASSAGE, NO_STRONG_MATCH, Results, SearchPage, searchRequest, similarLine } from "../components/SearchPage";
import { judgmentBody, judgmentMessage, judgmentsByPassage, judgmentsPath, normaliseQuery } from "../lib/judgments";
import type { Judgment, JudgmentList, JudgmentRequestBody, SearchResponse, SimilarRequestBody } from "../lib/types";
import { EMPTY_STATE, hasFilters } from "../lib/urlState";
import { type FakeApi, type Handler, problem, STRONG_RESULT, startFakeApi, WEAK_RESULT } from "./fakeApi";

const QUERY = "Nulidade da cláusula  compromissória";

function judged(overrides: Partial<Judgment> = {}): Judgment {
  return {
    id: 1,
    judge: "ana",
    query: QUERY,
    query_key: normaliseQuery(QUERY),
    document_id: STRONG_RESULT.document_id,
    passage_id: STRONG_RESULT.passage_id ?? 0,
    relevant: true,
    note: null,
    shown_rank: 1,
    updated_at: "2026-12-01T10:00:00Z",
    ...overrides,
  };
}

const card = (props: Partial<Parameters<typeof ResultCard>[0]> = {}) =>
  renderToStaticMarkup(<ResultCard result={STRONG_RESULT} position={3} {...props} />);
const judge = async () => undefined;

describe("the judgment buttons on a card", () => {
  it("are two labelled toggle buttons, neither pressed before a judgment", () => {
    const html = card({ onJudge: judge });
    expect(html).toContain('<div class="judgment" role="group" aria-labelledby="avaliacao-3-pergunta">');
    expect(html).toContain('<span id="avaliacao-3-pergunta" class="judgment-question">Este resultado serve para a sua pesquisa?</span>');
    expect(html).toContain('aria-pressed="false" aria-describedby="resultado-3">Relevante</button>');
    expect(html).toContain('aria-pressed="false" aria-describedby="resultado-3">Não relevante</button>');
    expect(html).not.toContain('aria-pressed="true"');
    expect(html).not.toContain("nota"); // a note once judged
    expect(html).toMatch(/<span class="judgment-status" role="status" aria-live="polite"><\/span>/);
    expect(html).not.toMatch(/\son[a-z]+=/i); // no inline handler: the strict CSP would block it
  });

  it("show the person's judgment pressed, its note, and offer to change the note", () => {
    const html = card({ onJudge: judge, judgment: judged({ relevant: false, note: "trata de outra cláusula" }) });
    expect(html).toContain('aria-pressed="false" aria-describedby="resultado-3">Relevante</button>');
    expect(html).toContain('aria-pressed="true" aria-describedby="resultado-3">Não relevante</button>');
    expect(html).toContain('<p class="judgment-note">Sua nota: trata de outra cláusula</p>');
    expect(html).toContain('aria-expanded="false" aria-controls="avaliacao-3-nota">Editar nota</button>');
    const plain = card({ onJudge: judge, judgment: judged() });
    expect(plain).toContain('aria-pressed="true" aria-describedby="resultado-3">Relevante</button>');
    expect(plain).toContain(">Acrescentar nota</button>");
  });

  it("are absent without a query to judge against, and on a result without a passage", () => {
    expect(card()).not.toContain("Relevante</button>");
    expect(card({ onJudge: judge, result: { ...STRONG_RESULT, passage_id: 0 } })).not.toContain("judgment");
  });

  it("say plainly whether the judgment was saved", () => {
    expect(judgmentMessage("saved", true)).toBe("Avaliação salva: relevante.");
    expect(judgmentMessage("saved", false)).toBe("Avaliação salva: não relevante.");
    expect(judgmentMessage("failed", true, "document not found")).toBe(
      "Não foi possível salvar a avaliação (document not found). Tente de novo.",
    );
  });
});

describe("what the page sends and reads back", () => {
  it("reads a query as the API does: accents, case and runs of spaces do not count", () => {
    expect(normaliseQuery("Responsabilidade  subsidiária do tomador de serviços")).toBe(
      "responsabilidade subsidiaria do tomador de servicos",
    ); // tests/services/search/test_judgments.py's query_key
    expect(judgmentsPath("ana", ` ${QUERY} `)).toBe(
      "/judgments?query=Nulidade+da+cl%C3%A1usula++compromiss%C3%B3ria&limit=1000&person=ana",
    );
  });

  it("keeps only this person's judgments of exactly this query, the latest change of each passage", () => {
    const list: JudgmentList = {
      judgments: [
        judged({ id: 1, relevant: true, updated_at: "2026-12-01T10:00:00Z" }),
        judged({ id: 2, relevant: false, updated_at: "2026-12-01T11:00:00Z" }),
        judged({ id: 3, passage_id: 9, query: `${QUERY} arbitral`, query_key: normaliseQuery(`${QUERY} arbitral`) }),
        judged({ id: 4, passage_id: 10, judge: "bruno" }),
      ],
      total: 4,
      limit: 1000,
      offset: 0,
    };
    const mine = judgmentsByPassage(list, "nulidade da CLAUSULA compromissória", "ana");
    expect([...mine.keys()]).toEqual([STRONG_RESULT.passage_id]);
    expect(mine.get(STRONG_RESULT.passage_id ?? 0)?.relevant).toBe(false);
  });

  it("posts the judged list's query, filters, order and rank, and keeps the note when only the verdict changes", () => {
    const list = { query: ` ${QUERY} `, filters: { court: ["stj"] }, sort: "date" as const };
    expect(judgmentBody(list, STRONG_RESULT, false, "súmula 485", 4)).toEqual({
      query: QUERY,
      document_id: STRONG_RESULT.document_id,
      passage_id: STRONG_RESULT.passage_id,
      relevant: false,
      note: "súmula 485",
      filters: { court: ["stj"] },
      sort: "date",
      shown_rank: 4,
    });
    expect(judgmentBody(list, STRONG_RESULT, true, "   ", 1)).not.toHaveProperty("note");
  });

  it("asks POST /search/similar for 'Mais como este', with the filters and page of the state", () => {
    const state = { ...EMPTY_STATE, q: "arbitragem", court: ["tjsp"], similar: 4711, page: 2, sort: "date" as const };
    expect(searchRequest(state)).toEqual({
      path: "/search/similar",
      body: { passage_id: 4711, filters: { court: ["tjsp"] }, top_k: 10, offset: 10, sort: "date" },
    });
    expect(searchRequest({ ...state, similar: null, page: 1 })).toEqual({
      path: "/search",
      body: { query: "arbitragem", filters: { court: ["tjsp"] }, top_k: 10, offset: 0, sort: "date" },
    });
    expect(hasFilters(state)).toBe(true);
  });
});

describe("'Mais como este'", () => {
  it("is a link to the shareable ?similar= URL on each card, tied to the card's title", () => {
    const html = card({ similarHref: "/?q=arbitragem&similar=4711", onSimilar: () => undefined });
    expect(html).toContain('<a class="more-like-this" href="/?q=arbitragem&amp;similar=4711" aria-describedby="resultado-3">Mais como este</a>');
    expect(card()).not.toContain("Mais como este");
  });

  it("links every card of a list to its own passage, keeping the list's query and filters", () => {
    const html = renderToStaticMarkup(
      <Results
        results={[STRONG_RESULT, WEAK_RESULT]}
        noStrongMatch={false}
        similarHref={(r) => `/?q=x&similar=${r.passage_id}`}
        onSimilar={() => undefined}
      />,
    );
    expect(html).toContain(`href="/?q=x&amp;similar=${STRONG_RESULT.passage_id}"`);
    expect(html).toContain(`href="/?q=x&amp;similar=${WEAK_RESULT.passage_id}"`);
  });

  it("says what the list is, and its own warning when nothing is close", () => {
    expect(similarLine({ passage_id: 4711, document_id: "x", title: "resp.pdf", citation: "STJ, REsp 1.602.076/SP", page_number: 3 })).toBe(
      "Trechos parecidos com o trecho da página 3 de “STJ, REsp 1.602.076/SP”, de outras decisões e documentos.",
    );
    expect(similarLine(null)).toBe("Trechos parecidos com o trecho escolhido, de outras decisões e documentos.");
    const html = renderToStaticMarkup(<Results results={[WEAK_RESULT]} noStrongMatch={true} similar={true} />);
    expect(html).toContain(NO_CLOSE_PASSAGE);
    expect(html).not.toContain(NO_STRONG_MATCH);
  });

  it("adds no Tab stop between the query and the results", () => {
    const html = renderToStaticMarkup(<SearchPage initial={{ ...EMPTY_STATE, q: "arbitragem", similar: 4711 }} person="ana" />);
    const between = html.slice(html.indexOf('id="consulta"'), html.indexOf('id="painel-filtros"'));
    expect(between.match(/<(button|select|a |input)/g) ?? []).toEqual(["<button", "<button", "<select"]);
  });
});

describe("judgments and 'Mais como este' through the gateway's /api proxy", () => {
  let api: FakeApi;
  const stored = new Map<string, Judgment>();
  const visible = new Set([STRONG_RESULT.document_id, WEAK_RESULT.document_id]);
  // services/search/routers/judgments.py and POST /search/similar, as far as the page relies on them.
  const handler: Handler = ({ method, path, body, headers }) => {
    const url = new URL(path, "http://api");
    if (headers.authorization !== "Bearer prs_ana") return problem(401, "sign in");
    if (method === "POST" && url.pathname === "/judgments") {
      const request = JSON.parse(body) as JudgmentRequestBody;
      if (!visible.has(request.document_id)) return problem(404, "document not found");
      const key = `${normaliseQuery(request.query)}|${request.passage_id}`;
      const earlier = stored.get(key);
      const judgment = judged({
        id: earlier?.id ?? stored.size + 1,
        query: request.query,
        query_key: normaliseQuery(request.query),
        document_id: request.document_id,
        passage_id: request.passage_id,
        relevant: request.relevant,
        note: request.note ?? null,
        updated_at: new Date().toISOString(),
      });
      stored.set(key, judgment);
      return { status: earlier ? 200 : 201, json: judgment };
    }
    if (method === "GET" && url.pathname === "/judgments") {
      const part = normaliseQuery(url.searchParams.get("query") ?? "");
      const judgments = [...stored.values()].filter((j) => j.query_key.includes(part) && j.judge === url.searchParams.get("person"));
      return { status: 200, json: { judgments, total: judgments.length, limit: 1000, offset: 0 } };
    }
    if (method === "POST" && url.pathname === "/search/similar") {
      const request = JSON.parse(body) as SimilarRequestBody;
      if (request.passage_id !== STRONG_RESULT.passage_id) return problem(404, "passage not found");
      const answer: SearchResponse = {
        results: [WEAK_RESULT],
        facets: {},
        total: 1,
        offset: 0,
        similar_to: { passage_id: request.passage_id, document_id: STRONG_RESULT.document_id, title: "resp.pdf", page_number: 1 },
      };
      return { status: 200, json: answer };
    }
    return problem(404, "Not Found");
  };
  beforeAll(async () => {
    api = await startFakeApi(handler);
  });
  afterAll(async () => {
    await api.close();
  });
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  const headers = { host: "gw.test:3000", origin: "http://gw.test:3000", cookie: "precedente_session=prs_ana" };
  async function call(method: "GET" | "POST", path: string, body?: unknown): Promise<Response> {
    vi.stubEnv("PRECEDENTE_API_URL", api.url);
    const url = new URL(`http://gw.test:3000/api${path}`);
    const request = new Request(url, {
      method,
      headers: body === undefined ? headers : { ...headers, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const segments = url.pathname.split("/").slice(2);
    const route = method === "GET" ? proxyGet : proxyPost;
    return route(request, { params: Promise.resolve({ path: segments }) });
  }

  it("records a judgment (201), changes it (200), reads it back for the query, and 404s a hidden document", async () => {
    const list = { query: QUERY, filters: {}, sort: "relevance" as const };
    const made = await call("POST", "/judgments", judgmentBody(list, STRONG_RESULT, true, "", 1));
    expect(made.status).toBe(201);
    const changed = await call("POST", "/judgments", judgmentBody(list, STRONG_RESULT, false, "outra tese", 1));
    expect(changed.status).toBe(200);
    const read = await call("GET", judgmentsPath("ana", QUERY));
    expect(read.status).toBe(200);
    const mine = judgmentsByPassage((await read.json()) as JudgmentList, QUERY, "ana");
    expect(mine.get(STRONG_RESULT.passage_id ?? 0)).toMatchObject({ relevant: false, note: "outra tese" });
    const hidden = await call("POST", "/judgments", judgmentBody(list, { document_id: "a-hidden-one", passage_id: 5 }, true, "", 2));
    expect(hidden.status).toBe(404);
    expect(hidden.headers.get("content-type")).toContain("application/problem+json");
  });

  it("lists passages like one through POST /api/search/similar, naming the source", async () => {
    const { path, body } = searchRequest({ ...EMPTY_STATE, similar: STRONG_RESULT.passage_id ?? 0 });
    const answer = await call("POST", path, body);
    expect(answer.status).toBe(200);
    const found = (await answer.json()) as SearchResponse;
    expect(found.results.map((r) => r.document_id)).toEqual([WEAK_RESULT.document_id]);
    expect(similarLine(found.similar_to ?? null)).toContain("página 1 de “resp.pdf”");
    expect((await call("POST", path, { ...body, passage_id: 1 })).status).toBe(404);
  });
});
