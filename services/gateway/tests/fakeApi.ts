// A real HTTP server on 127.0.0.1 that speaks the search API's identity JSON (services/search/routers/auth.py's
// contract), so the gateway's routes are tested over the wire, with their real fetch, not a mocked one.
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { SearchRequestBody, SearchResponse, SearchResult } from "../lib/types";

export interface Seen {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface Reply {
  status: number;
  json?: unknown;
  headers?: Record<string, string>;
}

export type Handler = (request: Seen) => Reply | Promise<Reply>;

const TITLES: Record<number, string> = { 401: "Unauthorized", 403: "Forbidden", 404: "Not Found", 422: "Unprocessable Entity", 429: "Too Many Requests", 503: "Service Unavailable" };

/** An error as the API answers it: an RFC 9457 problem document (services/search/problems.py). */
export function problem(status: number, detail: string, headers?: Record<string, string>): Reply {
  return {
    status,
    json: { type: "about:blank", title: TITLES[status] ?? "Error", status, detail },
    headers: { "content-type": "application/problem+json", ...headers },
  };
}

export interface FakeApi {
  url: string;
  seen: Seen[];
  /** The answers, set per test. */
  handle: Handler;
  close(): Promise<void>;
}

export const ACCOUNTS: Record<string, { password: string; groups: string[]; roles: string[]; mustChange?: boolean }> = {
  ana: { password: "ana-senha-forte", groups: ["socios"], roles: [] },
  // The first administrator of `precedente up`: a one-time password the API makes them change first.
  admin: { password: "senha-de-uma-vez-so", groups: [], roles: ["admin"], mustChange: true },
};

/** What the API lets a session whose password must be changed do (services/search/identity.py WHILE_CHANGE_REQUIRED). */
const WHILE_CHANGE_REQUIRED = new Set(["/auth/me", "/auth/password", "/auth/logout"]);

/** The API's behaviour for the identity routes: login, logout, /auth/me, and 401 for anything unauthenticated. */
export function identityApi(options: { authMode?: "required" | "none"; sessions?: Map<string, string> } = {}): Handler {
  const sessions = options.sessions ?? new Map<string, string>();
  const authMode = options.authMode ?? "required";
  const passwords = new Map(Object.entries(ACCOUNTS).map(([name, account]) => [name, account.password]));
  const mustChange = new Set(Object.entries(ACCOUNTS).filter(([, account]) => account.mustChange).map(([name]) => name));
  return ({ method, path, headers, body }): Reply => {
    const token = /^Bearer (\S+)$/.exec(headers.authorization ?? "")?.[1];
    const user = token ? sessions.get(token) : undefined;
    if (method === "POST" && path === "/auth/login") {
      const { user: name, password } = JSON.parse(body) as { user: string; password: string };
      const account = ACCOUNTS[name];
      if (!account || passwords.get(name) !== password) return problem(401, "usuário ou senha incorretos");
      const issued = `prs_${"x".repeat(39)}${sessions.size.toString().padStart(4, "0")}`;
      sessions.set(issued, name);
      const expires = new Date(Date.now() + 12 * 3600 * 1000).toISOString();
      return {
        status: 200,
        json: {
          token: issued,
          user: name,
          groups: account.groups,
          roles: account.roles,
          expires_at: expires,
          must_change_password: mustChange.has(name),
        },
      };
    }
    if (method === "POST" && path === "/auth/logout") {
      if (!user || !token) return problem(401, "sessão inválida", { "www-authenticate": "Bearer" });
      sessions.delete(token);
      return { status: 204 };
    }
    if (method === "POST" && path === "/auth/password") {
      if (!user || !token) return problem(401, "sessão inválida", { "www-authenticate": "Bearer" });
      const change = JSON.parse(body) as { current_password: string; new_password: string };
      if (passwords.get(user) !== change.current_password) return problem(403, "a senha atual está incorreta");
      if (change.new_password.length < 12) return problem(422, "a password needs at least 12 characters");
      if (change.new_password === change.current_password) return problem(422, "the new password is the current one");
      passwords.set(user, change.new_password);
      mustChange.delete(user);
      for (const [other, name] of sessions) if (name === user && other !== token) sessions.delete(other);
      return { status: 204 };
    }
    if (authMode === "none") {
      if (path === "/auth/me") {
        return {
          status: 200,
          json: { user: "demonstracao", kind: "anonymous", groups: ["publico"], roles: [], scopes: ["search", "ingest", "review"], auth_mode: "none" },
        };
      }
      return { status: 200, json: { ok: true } };
    }
    if (!user) return problem(401, "credencial ausente ou inválida", { "www-authenticate": "Bearer" });
    if (mustChange.has(user) && !WHILE_CHANGE_REQUIRED.has(path)) {
      return problem(403, "password change required", { "x-precedente-password-change": "required" });
    }
    if (path === "/auth/me") {
      const account = ACCOUNTS[user]!;
      return {
        status: 200,
        json: {
          user,
          kind: "user",
          groups: account.groups,
          roles: account.roles,
          scopes: ["search", "ingest"],
          auth_mode: "required",
          must_change_password: mustChange.has(user),
        },
      };
    }
    return { status: 200, json: { ok: true, user } };
  };
}

export async function startFakeApi(handle: Handler): Promise<FakeApi> {
  const seen: Seen[] = [];
  const api: FakeApi = { url: "", seen, handle, close: async () => undefined };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const request: Seen = { method: req.method ?? "", path: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks).toString() };
      seen.push(request);
      Promise.resolve(api.handle(request)).then(
        (reply) => {
          const payload = reply.json === undefined ? "" : JSON.stringify(reply.json);
          res.writeHead(reply.status, {
            ...(payload ? { "content-type": "application/json" } : {}),
            ...reply.headers,
          });
          res.end(payload);
        },
        (err: unknown) => {
          res.writeHead(500, { "content-type": "text/plain" });
          res.end(String(err));
        },
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  api.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  api.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return api;
}

/** A free port with nothing listening on it: the API is down. */
export async function deadUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

// ------------------------------------------------------------------------------------------ search

/** [start, end) of `part` in `text` (the API counts code points; these texts have no astral characters). */
export function spanOf(text: string, part: string): [number, number] {
  const start = text.indexOf(part);
  if (start < 0) throw new Error(`"${part}" is not in the passage`);
  return [start, start + part.length];
}

const RESP_ID = "6f1c4f0e-6a9b-4f7e-9a51-0d7b8e3c1a22";
const RESP_SCAN_ID = "0b7d2f4e-1c2a-4e1b-8f5c-3a9d7e6c5b41";
const RESP_EXTRACT_ID = "5d1e0c9a-7b3f-4a2e-9c8d-1f6e2a4b7c90";
const RESP_EMENTA =
  "RECURSO ESPECIAL. DIREITO CIVIL E PROCESSUAL CIVIL. CONTRATO DE FRANQUIA. CONTRATO DE ADESÃO. ARBITRAGEM. " +
  "REQUISITO DE VALIDADE DO ART. 4º, § 2º, DA LEI 9.307/96. DESCUMPRIMENTO. RECONHECIMENTO PRIMA FACIE DE " +
  "CLÁUSULA COMPROMISSÓRIA “PATOLÓGICA”. ATUAÇÃO DO PODER JUDICIÁRIO. POSSIBILIDADE. NULIDADE RECONHECIDA. " +
  "RECURSO PROVIDO.";
const RESP_BEST =
  "3. Todos os contratos de adesão, mesmo aqueles que não consubstanciam relações de consumo, como os contratos " +
  "de franquia, devem observar o disposto no art. 4º, § 2º, da Lei 9.307/96.\n4. O Poder Judiciário pode, nos " +
  "casos em que prima facie é identificado um compromisso arbitral “patológico”, i.e., claramente ilegal, " +
  "declarar a nulidade dessa cláusula, independentemente do estado em que se encontre o procedimento arbitral.";
const RESP_SENTENCE =
  "O Poder Judiciário pode, nos casos em que prima facie é identificado um compromisso arbitral “patológico”, " +
  "i.e., claramente ilegal, declarar a nulidade dessa cláusula, independentemente do estado em que se encontre o " +
  "procedimento arbitral.";
const RESP_VOTO =
  "Cinge-se a controvérsia a definir a validade de compromisso arbitral firmado no bojo do contrato de franquia " +
  "celebrado entre os litigantes.";
const RESP_PRELIMINAR =
  "Em matéria de preliminar, afasto a alegação da recorrente, a qual pugna pelo reconhecimento do não " +
  "cumprimento ao disposto nos arts. 525 e 526 do CPC pela recorrida.";

/**
 * A work as POST /search sends it (services/search/query.py SearchResult), every field filled: the passages and
 * metadata of ../shared/docs/stj_resp_1602076_sp_acordao.pdf (tests/data/metadata_gold.json), with a scanned copy.
 */
export const STRONG_RESULT: SearchResult = {
  chunk_text: RESP_BEST,
  document_title: "REsp 1.602.076/SP",
  document_date: "2016-09-15",
  document_type: "acordao",
  document_type_label: "Acórdão",
  court: "stj",
  court_label: "STJ",
  relevance_explanation:
    "O trecho afirma que o Judiciário pode declarar nula a cláusula compromissória claramente ilegal, " +
    "antes mesmo do fim da arbitragem.",
  similarity_score: 0.8137,
  page_number: 1,
  page_end: 1,
  section_path: "ementa",
  document_id: RESP_ID,
  char_start: 912,
  char_end: 912 + RESP_BEST.length,
  highlights: [spanOf(RESP_BEST, "nulidade"), spanOf(RESP_BEST, "cláusula"), spanOf(RESP_BEST, "arbitral")],
  passage_id: 4711,
  work_id: "stj:resp-1602076-sp",
  relevance: "forte",
  relevance_probability: 0.91,
  explanation_span: spanOf(RESP_BEST, RESP_SENTENCE),
  other_passages: [
    {
      passage_id: 4733,
      document_id: RESP_ID,
      chunk_text: RESP_VOTO,
      page_number: 6,
      page_end: 6,
      section_path: "voto",
      char_start: 6120,
      char_end: 6120 + RESP_VOTO.length,
      highlights: [spanOf(RESP_VOTO, "compromisso arbitral")],
      document_url: `/documents/${RESP_ID}?passage=4733#page=6`,
    },
    {
      passage_id: 4734,
      document_id: RESP_ID,
      chunk_text: RESP_PRELIMINAR,
      page_number: 6,
      page_end: 7,
      section_path: "voto > I – Do alegado descumprimento ao art. 526 do CPC",
      highlights: [],
      document_url: `/documents/${RESP_ID}?passage=4734#page=6`,
    },
  ],
  copies: [
    {
      document_id: RESP_SCAN_ID,
      title: "REsp 1.602.076/SP (digitalização)",
      filename: "stj_resp_1602076_sp_acordao_scan.pdf",
      document_type: "acordao",
      page_count: 20,
      full_text: true,
      document_url: `/documents/${RESP_SCAN_ID}`,
    },
    {
      document_id: RESP_EXTRACT_ID,
      title: "REsp 1.602.076/SP",
      filename: "i1078.pdf",
      document_type: "acordao",
      page_count: 2,
      full_text: false,
      document_url: `/documents/${RESP_EXTRACT_ID}`,
    },
  ],
  full_text: true,
  citation: "STJ, REsp 1.602.076/SP, Rel. Min. Nancy Andrighi, Terceira Turma, j. 15/09/2016, DJe 30/09/2016",
  ementa: RESP_EMENTA,
  document_url: `/documents/${RESP_ID}?passage=4711#page=1`,
  process_number: "REsp 1.602.076/SP",
  procedural_class: "Recurso Especial",
  relator: "Nancy Andrighi",
  judging_body: "3ª Turma",
  judgment_date: "2016-09-15",
  publication_date: "2016-09-30",
};

const MEMO =
  "Nota interna do escritório sobre cláusula arbitral em contratos de franquia: verificar a forma do art. 4º.";

/** A work with nothing but what every result has: no metadata to cite, no other passage or copy, graded weak. */
export const WEAK_RESULT: SearchResult = {
  chunk_text: MEMO,
  document_title: "nota_interna.txt",
  document_date: null,
  document_type: "outro",
  court: null,
  relevance_explanation: "O trecho menciona cláusula arbitral, mas não trata da sua nulidade.",
  similarity_score: 0.4012,
  page_number: 1,
  page_end: 1,
  section_path: "corpo",
  document_id: "9a3c1e77-2b4d-4f60-8e1a-5c7d9b0f2e13",
  highlights: [spanOf(MEMO, "cláusula arbitral")],
  passage_id: 5120,
  work_id: "9a3c1e77-2b4d-4f60-8e1a-5c7d9b0f2e13",
  relevance: "fraca",
  relevance_probability: 0.12,
  explanation_span: null,
  other_passages: [],
  copies: [],
  citation: null,
  ementa: null,
  document_url: "/documents/9a3c1e77-2b4d-4f60-8e1a-5c7d9b0f2e13",
  process_number: null,
  procedural_class: null,
  relator: null,
  judging_body: null,
  judgment_date: null,
  publication_date: null,
};

/**
 * The API's POST /search over these works (already in rank order): a page of top_k from offset, the total of
 * works, how many are "forte" or "provável", and no_strong_match when none is. Facets count the documents.
 */
export function searchApi(works: SearchResult[]): Handler {
  return ({ method, path, body }) => {
    if (method !== "POST" || path !== "/search") return problem(404, "Not Found");
    const request = JSON.parse(body) as SearchRequestBody;
    if (!request.query?.trim()) return problem(422, "query is required");
    const offset = request.offset ?? 0;
    const ordered =
      request.sort === "date"
        ? [...works].sort((a, b) => (b.document_date ?? "").localeCompare(a.document_date ?? ""))
        : works;
    const relevant = works.filter((w) => w.relevance === "forte" || w.relevance === "provável").length;
    const courts: Record<string, number> = {};
    for (const w of works) if (w.court) courts[w.court] = (courts[w.court] ?? 0) + 1;
    const response: SearchResponse = {
      results: ordered.slice(offset, offset + (request.top_k ?? 5)),
      facets: { court: courts },
      total: works.length,
      relevant_total: relevant,
      offset,
      no_strong_match: relevant === 0,
    };
    return { status: 200, json: response };
  };
}
