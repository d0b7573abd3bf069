import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readConfig } from "../lib/config";
import { fetchIdentity, IdentityUnavailable, parseIdentity } from "../lib/identity";
import { loginPath, requiredChangePath, safeNext } from "../lib/navigation";
import { maxAgeFrom, sessionCookie, sessionTokenFromCookies, validToken } from "../lib/session";
import { deadUrl, type FakeApi, identityApi, startFakeApi } from "./fakeApi";

let api: FakeApi;
beforeAll(async () => {
  api = await startFakeApi(() => ({ status: 500 }));
});
afterAll(async () => {
  await api.close();
});

describe("fetchIdentity (GET /auth/me with the session's bearer)", () => {
  it("is the signed-in person, with the groups the API gives", async () => {
    api.handle = identityApi({ sessions: new Map([["prs_ana", "ana"]]) });
    const identity = await fetchIdentity(readConfig({ PRECEDENTE_API_URL: api.url }), "prs_ana");
    expect(identity).toMatchObject({ user: "ana", kind: "user", groups: ["socios"], authMode: "required", demo: false });
    expect(api.seen.at(-1)?.headers.authorization).toBe("Bearer prs_ana");
  });

  it("is nobody (sign in) when the API refuses the token or there is none", async () => {
    api.handle = identityApi();
    const config = readConfig({ PRECEDENTE_API_URL: api.url });
    expect(await fetchIdentity(config, "prs_revogada")).toBeNull();
    expect(await fetchIdentity(config, undefined)).toBeNull();
    expect(api.seen.at(-1)?.headers.authorization).toBeUndefined();
  });

  it("in demo mode (auth_mode none) is the anonymous identity, without any cookie", async () => {
    api.handle = identityApi({ authMode: "none" });
    const identity = await fetchIdentity(readConfig({ PRECEDENTE_API_URL: api.url }), undefined);
    expect(identity).toMatchObject({ user: "demonstracao", kind: "anonymous", groups: ["publico"], authMode: "none", demo: true });
  });

  it("throws, rather than guessing, when the API is down or answers something else", async () => {
    api.handle = () => ({ status: 503 });
    await expect(fetchIdentity(readConfig({ PRECEDENTE_API_URL: api.url }), "prs_x")).rejects.toBeInstanceOf(IdentityUnavailable);
    api.handle = () => ({ status: 200, json: { user: "ana" } });
    await expect(fetchIdentity(readConfig({ PRECEDENTE_API_URL: api.url }), "prs_x")).rejects.toBeInstanceOf(IdentityUnavailable);
    await expect(fetchIdentity(readConfig({ PRECEDENTE_API_URL: await deadUrl() }), "prs_x")).rejects.toBeInstanceOf(IdentityUnavailable);
  });

  it("reads only well-formed answers", () => {
    expect(parseIdentity(null)).toBeNull();
    expect(parseIdentity({ user: "ana", auth_mode: "maybe" })).toBeNull();
    expect(parseIdentity({ user: "ana", auth_mode: "required", groups: ["a", 1] })?.groups).toEqual(["a"]);
    expect(parseIdentity({ user: "ana", auth_mode: "required" })?.mustChangePassword).toBe(false);
    expect(parseIdentity({ user: "admin", auth_mode: "required", must_change_password: true })?.mustChangePassword).toBe(true);
    expect(parseIdentity({ user: "admin", auth_mode: "required", must_change_password: "yes" })?.mustChangePassword).toBe(false);
  });
});

describe("session cookie", () => {
  it("is HttpOnly and SameSite=Lax, Secure when asked", () => {
    const cookie = sessionCookie("prs_t", 60, false);
    expect(cookie).toBe("precedente_session=prs_t; Path=/; HttpOnly; SameSite=Lax; Max-Age=60");
    expect(sessionCookie("prs_t", 60, true)).toMatch(/; Secure$/);
  });

  it("lives as long as the API's session", () => {
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(maxAgeFrom("2026-01-01T12:00:00Z", now)).toBe(12 * 3600);
    expect(maxAgeFrom("2026-01-01T00:00:00.000+00:00", now)).toBe(1);
    expect(maxAgeFrom(undefined, now)).toBe(12 * 3600);
    expect(maxAgeFrom("garbage", now)).toBe(12 * 3600);
  });

  it("reads the token from a Cookie header, and only a well-formed one", () => {
    expect(sessionTokenFromCookies("a=1; precedente_session=prs_abc-_; b=2")).toBe("prs_abc-_");
    expect(sessionTokenFromCookies("precedente_session=")).toBeUndefined();
    expect(sessionTokenFromCookies("precedente_session=a b")).toBeUndefined();
    expect(sessionTokenFromCookies(null)).toBeUndefined();
    expect(validToken("x\r\nX-Precedente-User: admin")).toBeUndefined();
  });
});

describe("navigation", () => {
  it("only returns to paths of this site after signing in", () => {
    expect(safeNext("/?q=x")).toBe("/?q=x");
    expect(safeNext("//evil.example")).toBe("/");
    expect(safeNext("https://evil.example")).toBe("/");
    expect(safeNext("/\\evil.example")).toBe("/");
    expect(safeNext(null)).toBe("/");
    expect(loginPath("/revisao")).toBe("/login?next=%2Frevisao");
    expect(loginPath("//evil.example", "tentativas")).toBe("/login?erro=tentativas&next=%2F");
    expect(requiredChangePath("/revisao?id=1")).toBe("/senha?obrigatoria=1&next=%2Frevisao%3Fid%3D1");
    expect(requiredChangePath("//evil.example")).toBe("/senha?obrigatoria=1&next=%2F");
  });
});
