// The gateway's route handlers (sign-in, sign-out, /api/* proxy) against a real local HTTP server speaking
// the search API's identity contract.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { OPTIONS, POST as proxyPost, GET as proxyGet } from "../app/api/[...path]/route";
import { POST as login } from "../app/auth/login/route";
import { POST as logout } from "../app/auth/logout/route";
import { POST as changePassword } from "../app/auth/password/route";
import { ACCOUNTS, deadUrl, type FakeApi, identityApi, problem, startFakeApi } from "./fakeApi";

const GW = "http://gw.test:3000";
let api: FakeApi;
let sessions: Map<string, string>;

beforeAll(async () => {
  api = await startFakeApi(() => ({ status: 500 }));
});
afterAll(async () => {
  await api.close();
});

function useApi(options: { authMode?: "required" | "none" } = {}, url?: string): void {
  sessions = new Map();
  api.handle = identityApi({ ...options, sessions });
  api.seen.length = 0;
  vi.stubEnv("PRECEDENTE_API_URL", url ?? api.url);
}
afterEach(() => {
  vi.unstubAllEnvs();
});

function loginForm(fields: Record<string, string>, init: { url?: string; headers?: Record<string, string> } = {}): Request {
  return new Request(init.url ?? `${GW}/auth/login`, {
    method: "POST",
    headers: { host: "gw.test:3000", origin: GW, ...init.headers },
    body: new URLSearchParams(fields),
  });
}

const ana = { username: "ana", password: ACCOUNTS.ana!.password, next: "/revisao?id=1" };

describe("POST /auth/login", () => {
  it("on 200 keeps the API's session token in an HttpOnly, SameSite=Lax cookie and goes to next", async () => {
    useApi();
    const response = await login(loginForm(ana));
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe("/revisao?id=1");
    const cookie = response.headers.get("set-cookie") ?? "";
    const token = [...sessions.keys()][0]!;
    expect(token).toMatch(/^prs_/);
    expect(cookie).toContain(`precedente_session=${token}`);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).toMatch(/Path=\//);
    expect(cookie).not.toMatch(/Secure/);
    const maxAge = Number(/Max-Age=(\d+)/.exec(cookie)?.[1]);
    expect(maxAge).toBeGreaterThan(12 * 3600 - 60);
    expect(maxAge).toBeLessThanOrEqual(12 * 3600);
    // What the API was sent: the JSON of the contract, and nothing identity-like from the browser.
    const [sent] = api.seen;
    expect(sent?.path).toBe("/auth/login");
    expect(JSON.parse(sent?.body ?? "")).toEqual({ user: "ana", password: ACCOUNTS.ana!.password });
    expect(sent?.headers.authorization).toBeUndefined();
    expect(sent?.headers.cookie).toBeUndefined();
  });

  it("marks the cookie Secure behind https, and takes its lifetime from expires_at", async () => {
    useApi();
    api.handle = () => ({
      status: 200,
      json: { token: "prs_abc", user: "ana", groups: [], roles: [], expires_at: new Date(Date.now() + 3600_000).toISOString() },
    });
    const response = await login(loginForm(ana, { headers: { "x-forwarded-proto": "https" } }));
    const cookie = response.headers.get("set-cookie") ?? "";
    expect(cookie).toMatch(/; Secure/);
    const maxAge = Number(/Max-Age=(\d+)/.exec(cookie)?.[1]);
    expect(maxAge).toBeGreaterThan(3500);
    expect(maxAge).toBeLessThanOrEqual(3600);
  });

  it("maps 401 to erro=credenciais, with no cookie", async () => {
    useApi();
    const response = await login(loginForm({ ...ana, password: "errada" }));
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe("/login?erro=credenciais&next=%2Frevisao%3Fid%3D1");
    expect(response.headers.get("set-cookie")).toBeNull();
  });

  it("maps 429 to erro=tentativas", async () => {
    useApi();
    api.handle = () => problem(429, "muitas tentativas", { "retry-after": "60" });
    const response = await login(loginForm(ana));
    expect(response.headers.get("location")).toMatch(/^\/login\?erro=tentativas&/);
    expect(response.headers.get("set-cookie")).toBeNull();
  });

  it("maps a 5xx, an API that is down, or an answer without a token to erro=indisponivel", async () => {
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    useApi();
    api.handle = () => problem(503, "indisponível");
    expect((await login(loginForm(ana))).headers.get("location")).toMatch(/^\/login\?erro=indisponivel&/);
    api.handle = () => ({ status: 200, json: { user: "ana", token: "has spaces; and=semicolons" } });
    const garbled = await login(loginForm(ana));
    expect(garbled.headers.get("location")).toMatch(/^\/login\?erro=indisponivel&/);
    expect(garbled.headers.get("set-cookie")).toBeNull();
    useApi({}, await deadUrl());
    expect((await login(loginForm(ana))).headers.get("location")).toMatch(/^\/login\?erro=indisponivel&/);
    vi.restoreAllMocks();
  });

  it("refuses a form posted from another site, without asking the API", async () => {
    useApi();
    const response = await login(loginForm(ana, { headers: { origin: "http://evil.example" } }));
    expect(response.status).toBe(403);
    expect(api.seen).toEqual([]);
  });

  it("only goes back to paths of this site, and does not ask the API about empty fields", async () => {
    useApi();
    const away = await login(loginForm({ ...ana, next: "//evil.example/x" }));
    expect(away.headers.get("location")).toBe("/");
    const empty = await login(loginForm({ username: "", password: "", next: "/" }));
    expect(empty.headers.get("location")).toBe("/login?erro=credenciais&next=%2F");
    expect(api.seen.length).toBe(1);
  });
});

describe("POST /auth/logout", () => {
  it("ends the session at the API with its bearer and clears the cookie", async () => {
    useApi();
    const signedIn = await login(loginForm(ana));
    const token = /precedente_session=([^;]+)/.exec(signedIn.headers.get("set-cookie") ?? "")?.[1];
    expect(token).toBeDefined();
    const response = await logout(
      new Request(`${GW}/auth/logout`, { method: "POST", headers: { host: "gw.test:3000", origin: GW, cookie: `a=1; precedente_session=${token}` } }),
    );
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe("/login");
    expect(response.headers.get("set-cookie")).toMatch(/^precedente_session=; .*Max-Age=0/);
    const sent = api.seen.find((s) => s.path === "/auth/logout");
    expect(sent?.method).toBe("POST");
    expect(sent?.headers.authorization).toBe(`Bearer ${token}`);
    expect(sessions.size).toBe(0);
  });

  it("clears the cookie even when the API cannot be reached, and refuses other sites", async () => {
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    useApi({}, await deadUrl());
    const cookie = "precedente_session=prs_whatever";
    const response = await logout(new Request(`${GW}/auth/logout`, { method: "POST", headers: { host: "gw.test:3000", cookie } }));
    expect(response.headers.get("set-cookie")).toMatch(/Max-Age=0/);
    const foreign = await logout(
      new Request(`${GW}/auth/logout`, { method: "POST", headers: { host: "gw.test:3000", origin: "http://evil.example", cookie } }),
    );
    expect(foreign.status).toBe(403);
    vi.restoreAllMocks();
  });
});

function context(...path: string[]) {
  return { params: Promise.resolve({ path }) };
}

describe("POST /auth/password", () => {
  async function signedIn(): Promise<string> {
    const response = await login(loginForm(ana));
    return /precedente_session=([^;]+)/.exec(response.headers.get("set-cookie") ?? "")?.[1] ?? "";
  }

  function passwordForm(token: string, fields: Record<string, string>, origin = GW): Request {
    return new Request(`${GW}/auth/password`, {
      method: "POST",
      headers: { host: "gw.test:3000", origin, cookie: `precedente_session=${token}` },
      body: new URLSearchParams(fields),
    });
  }

  const chosen = "uma-senha-nova-e-longa";

  it("sends the change as the session's bearer, keeps this session and ends the others", async () => {
    useApi();
    const other = await signedIn();
    const token = await signedIn();
    const fields = { current_password: ACCOUNTS.ana!.password, new_password: chosen, confirm_password: chosen };
    const response = await changePassword(passwordForm(token, fields));
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe("/senha?ok=ok");
    const sent = api.seen.find((request) => request.path === "/auth/password");
    expect(sent?.headers.authorization).toBe(`Bearer ${token}`);
    expect(sent?.headers.cookie).toBeUndefined();
    expect(JSON.parse(sent?.body ?? "")).toEqual({ current_password: ACCOUNTS.ana!.password, new_password: chosen });
    expect(sessions.has(token)).toBe(true);
    expect(sessions.has(other)).toBe(false);
  });

  it("says what is wrong without asking the API when it can, and maps the API's refusals", async () => {
    useApi();
    const token = await signedIn();
    const cases: [Record<string, string>, string][] = [
      [{ current_password: ACCOUNTS.ana!.password, new_password: chosen, confirm_password: "outra" }, "/senha?erro=diferentes"],
      [{ current_password: ACCOUNTS.ana!.password, new_password: "curta", confirm_password: "curta" }, "/senha?erro=curta"],
      [{ current_password: "", new_password: chosen, confirm_password: chosen }, "/senha?erro=atual"],
    ];
    for (const [fields, location] of cases) {
      expect((await changePassword(passwordForm(token, fields))).headers.get("location")).toBe(location);
    }
    expect(api.seen.filter((request) => request.path === "/auth/password")).toHaveLength(0);
    const wrong = { current_password: "nao-e-esta-senha", new_password: chosen, confirm_password: chosen };
    expect((await changePassword(passwordForm(token, wrong))).headers.get("location")).toBe("/senha?erro=atual");
    const same = ACCOUNTS.ana!.password; // long enough: the API refuses it as the current one
    const unchanged = { current_password: same, new_password: same, confirm_password: same };
    expect((await changePassword(passwordForm(token, unchanged))).headers.get("location")).toBe("/senha?erro=igual");
  });

  it("a required change (the first administrator's) goes from sign-in to the form, keeps next, then frees the session", async () => {
    useApi();
    const first = { username: "admin", password: ACCOUNTS.admin!.password, next: "/ingestao" };
    const signedInAt = await login(loginForm(first));
    expect(signedInAt.status).toBe(303);
    expect(signedInAt.headers.get("location")).toBe("/senha?obrigatoria=1&next=%2Fingestao");
    const token = /precedente_session=([^;]+)/.exec(signedInAt.headers.get("set-cookie") ?? "")?.[1] ?? "";
    expect(token).toMatch(/^prs_/);
    const status = () =>
      proxyGet(
        new Request(`${GW}/api/status`, { headers: { cookie: `precedente_session=${token}`, accept: "application/json" } }),
        context("status"),
      );
    const refused = await status();
    expect(refused.status).toBe(403); // the API holds the session back until the change
    const base = { current_password: ACCOUNTS.admin!.password, next: "/ingestao" };
    const mismatch = await changePassword(passwordForm(token, { ...base, new_password: chosen, confirm_password: "x" }));
    expect(mismatch.headers.get("location")).toBe("/senha?erro=diferentes&obrigatoria=1&next=%2Fingestao");
    const done = await changePassword(passwordForm(token, { ...base, new_password: chosen, confirm_password: chosen }));
    expect(done.headers.get("location")).toBe("/senha?ok=ok&next=%2Fingestao");
    expect((await status()).status).toBe(200);
    const again = { current_password: chosen, new_password: `${chosen}-2`, confirm_password: `${chosen}-2` };
    const evil = await changePassword(passwordForm(token, { ...again, next: "//evil.example" }));
    expect(evil.headers.get("location")).toBe("/senha?ok=ok&next=%2F"); // only paths of this site
  });

  it("sends a dead session to sign-in, refuses another origin, and says when the API is down", async () => {
    useApi();
    const fields = { current_password: ACCOUNTS.ana!.password, new_password: chosen, confirm_password: chosen };
    const dead = await changePassword(passwordForm("prs_morto", fields));
    expect(dead.headers.get("location")).toBe("/login?next=%2Fsenha");
    const token = await signedIn();
    expect((await changePassword(passwordForm(token, fields, "http://evil.example"))).status).toBe(403);
    useApi({}, await deadUrl());
    expect((await changePassword(passwordForm(token, fields))).headers.get("location")).toBe("/senha?erro=indisponivel");
  });
});

describe("/api/* proxy", () => {
  it("sends the API the cookie's token as a bearer and nothing identity-like from the browser", async () => {
    useApi();
    sessions.set("prs_sessao_da_ana", "ana");
    const request = new Request(`${GW}/api/search?x=1`, {
      method: "POST",
      headers: {
        host: "gw.test:3000",
        origin: GW,
        "content-type": "application/json",
        authorization: "Bearer prk_0123456789ab_forged",
        cookie: "outro=1; precedente_session=prs_sessao_da_ana",
        "x-precedente-user": "admin",
        "x-precedente-groups": "socios,diretoria",
        "x-precedente-api-key": "prk_x",
      },
      body: JSON.stringify({ query: "arbitragem" }),
    });
    const response = await proxyPost(request, context("search"));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true, user: "ana" });
    const [sent] = api.seen;
    expect(sent?.path).toBe("/search?x=1");
    expect(sent?.body).toBe(JSON.stringify({ query: "arbitragem" }));
    expect(sent?.headers.authorization).toBe("Bearer prs_sessao_da_ana");
    expect(sent?.headers.cookie).toBeUndefined();
    expect(Object.keys(sent?.headers ?? {}).filter((k) => k.startsWith("x-precedente"))).toEqual([]);
  });

  it("without a cookie sends no Authorization, even one the browser made up", async () => {
    useApi();
    const response = await proxyGet(
      new Request(`${GW}/api/status`, { headers: { authorization: "Bearer prs_stolen", accept: "application/json", "sec-fetch-mode": "cors" } }),
      context("status"),
    );
    expect(response.status).toBe(401);
    expect(response.headers.get("set-cookie")).toBeNull();
    expect(api.seen[0]?.headers.authorization).toBeUndefined();
  });

  it("on a 401 clears a dead cookie; a page opened in the browser goes to sign-in and back", async () => {
    useApi();
    const cookie = "precedente_session=prs_expirada";
    const fetched = await proxyGet(
      new Request(`${GW}/api/documents/abc`, { headers: { cookie, accept: "application/json", "sec-fetch-mode": "cors" } }),
      context("documents", "abc"),
    );
    expect(fetched.status).toBe(401);
    expect(fetched.headers.get("set-cookie")).toMatch(/^precedente_session=; .*Max-Age=0/);
    expect(fetched.headers.get("www-authenticate")).toBeNull();
    const opened = await proxyGet(
      new Request(`${GW}/api/documents/abc?v=1`, { headers: { cookie, accept: "text/html", "sec-fetch-mode": "navigate" } }),
      context("documents", "abc"),
    );
    expect(opened.status).toBe(303);
    expect(opened.headers.get("location")).toBe("/login?next=%2Fapi%2Fdocuments%2Fabc%3Fv%3D1");
    expect(opened.headers.get("set-cookie")).toMatch(/Max-Age=0/);
  });

  it("in demo mode the API answers without a credential, and the proxy adds none", async () => {
    useApi({ authMode: "none" });
    const response = await proxyGet(new Request(`${GW}/api/status`), context("status"));
    expect(response.status).toBe(200);
    expect(api.seen[0]?.headers.authorization).toBeUndefined();
  });

  it("passes no CORS header on, refuses writes from other sites, and answers preflights with no allow headers", async () => {
    useApi({ authMode: "none" });
    api.handle = () => ({ status: 200, json: {}, headers: { "access-control-allow-origin": "*", "access-control-allow-credentials": "true" } });
    const read = await proxyGet(new Request(`${GW}/api/status`, { headers: { origin: "http://evil.example" } }), context("status"));
    expect([...read.headers.keys()].filter((k) => k.startsWith("access-control-"))).toEqual([]);
    const write = await proxyPost(
      new Request(`${GW}/api/documents`, { method: "POST", headers: { host: "gw.test:3000", origin: "http://evil.example" }, body: "x" }),
      context("documents"),
    );
    expect(write.status).toBe(403);
    expect(api.seen.length).toBe(1);
    const preflight = OPTIONS();
    expect(preflight.status).toBe(405);
    expect([...preflight.headers.keys()].filter((k) => k.startsWith("access-control-") || k === "allow")).toEqual([]);
    expect(preflight.headers.get("content-type")).toBe("application/problem+json");
  });

  it("answers its own errors as RFC 9457 problem documents, and passes the API's on as they are", async () => {
    useApi({ authMode: "none" });
    const refused = await proxyPost(
      new Request(`${GW}/api/search`, { method: "POST", headers: { host: "gw.test:3000", origin: "http://evil.example" }, body: "{}" }),
      context("search"),
    );
    expect(refused.headers.get("content-type")).toBe("application/problem+json");
    expect(await refused.json()).toEqual({ type: "about:blank", title: "Forbidden", status: 403, detail: "origem não permitida" });
    const unknown = await proxyGet(new Request(`${GW}/api/a/..`), context("a", ".."));
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get("content-type")).toBe("application/problem+json");
    expect((await unknown.json()).detail).toBe("rota desconhecida");
    const errors = [{ loc: ["body", "query"], msg: "Field required", type: "missing" }];
    const validation = problem(422, "body.query: Field required");
    api.handle = () => ({ ...validation, json: { ...(validation.json as object), errors } });
    const invalid = await proxyPost(
      new Request(`${GW}/api/search`, { method: "POST", headers: { host: "gw.test:3000", origin: GW }, body: "{}" }),
      context("search"),
    );
    expect(invalid.status).toBe(422);
    expect(invalid.headers.get("content-type")).toBe("application/problem+json"); // not turned into a download
    expect((await invalid.json()).errors).toEqual(errors);
    useApi({}, await deadUrl());
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    const down = await proxyGet(new Request(`${GW}/api/status`), context("status"));
    expect(down.status).toBe(502);
    expect(await down.json()).toMatchObject({ status: 502, title: "Bad Gateway", detail: "serviço de busca indisponível" });
    vi.restoreAllMocks();
  });
});
