import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readConfig, splitGroups } from "../lib/config";
import { DEMO_USER, identityFromToken } from "../lib/identity";
import { hashPassword, verifyPassword } from "../lib/passwords";
import { safeNext } from "../lib/server";
import { sessionCookie, signSession, verifySession } from "../lib/session";
import { authenticate, parseUsers } from "../lib/users";

describe("passwords", () => {
  it("verifies the right password and refuses others", () => {
    const hash = hashPassword("correta horse", undefined, 1024);
    expect(hash).toMatch(/^scrypt\$1024\$8\$1\$/);
    expect(verifyPassword("correta horse", hash)).toBe(true);
    expect(verifyPassword("errada", hash)).toBe(false);
    expect(verifyPassword("correta horse", "plain-text")).toBe(false);
  });

  it("accepts the hash the command-line script prints", () => {
    const script = path.resolve(__dirname, "../scripts/hash-password.mjs");
    const hash = execFileSync(process.execPath, [script], { input: "s3nha-forte\n" }).toString().trim();
    expect(verifyPassword("s3nha-forte", hash)).toBe(true);
  });
});

describe("session cookie", () => {
  it("round-trips a user name and rejects forged or expired tokens", () => {
    const token = signSession("ana", "k1", 1000);
    expect(verifySession(token, "k1", 1001)).toBe("ana");
    expect(verifySession(token, "k2", 1001)).toBeNull();
    expect(verifySession(token, "k1", 1000 + 13 * 3600)).toBeNull();
    const [payload, mac] = token.split(".");
    const forged = Buffer.from(JSON.stringify({ u: "admin", exp: 9e9 })).toString("base64url");
    expect(verifySession(`${forged}.${mac}`, "k1", 1001)).toBeNull();
    expect(verifySession(`${payload}`, "k1", 1001)).toBeNull();
    expect(verifySession(undefined, "k1")).toBeNull();
  });

  it("is HttpOnly and SameSite=Lax", () => {
    const cookie = sessionCookie("t", false);
    expect(cookie).toContain("HttpOnly");
    expect(cookie).toContain("SameSite=Lax");
    expect(cookie).not.toContain("Secure");
    expect(sessionCookie("t", true)).toContain("Secure");
  });
});

describe("users and identity", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "gw-"));
  const file = path.join(dir, "users.json");
  writeFileSync(file, JSON.stringify({ ana: { password_hash: hashPassword("segredo", undefined, 1024), groups: ["socios"] } }));
  const config = readConfig({ PRECEDENTE_GATEWAY_USERS_FILE: file, PRECEDENTE_GATEWAY_SECRET: "k" });

  it("authenticates from the users file", () => {
    const users = parseUsers(JSON.stringify({ ana: { password_hash: hashPassword("segredo", undefined, 1024), groups: ["socios"] } }));
    expect(authenticate(users, "ana", "segredo")?.groups).toEqual(["socios"]);
    expect(authenticate(users, "ana", "outra")).toBeNull();
    expect(authenticate(users, "ninguem", "segredo")).toBeNull();
  });

  it("rejects malformed users files", () => {
    expect(() => parseUsers("[]")).toThrow();
    expect(() => parseUsers(JSON.stringify({ ana: { password_hash: "abc", groups: [] } }))).toThrow(/scrypt/);
    expect(() => parseUsers(JSON.stringify({ "a,b": { password_hash: "scrypt$x", groups: [] } }))).toThrow(/name/);
    expect(() => parseUsers(JSON.stringify({ ana: { password_hash: "scrypt$x", groups: ["a,b"] } }))).toThrow(/group/);
  });

  it("gives the signed-in user their groups from the file, and nobody else anything", () => {
    expect(identityFromToken(signSession("ana", "k"), config)).toEqual({ user: "ana", groups: ["socios"], demo: false });
    expect(identityFromToken(signSession("ana", "other"), config)).toBeNull();
    expect(identityFromToken(signSession("bruno", "k"), config)).toBeNull();
    expect(identityFromToken(undefined, config)).toBeNull();
  });

  it("in demo mode, everyone is one anonymous identity with the demo groups", () => {
    expect(identityFromToken(undefined, readConfig({}))).toEqual({ user: DEMO_USER, groups: [], demo: true });
    const demo = readConfig({ PRECEDENTE_GATEWAY_DEMO_GROUPS: "publico, *, a,b" });
    expect(identityFromToken("forged", demo)?.groups).toEqual(["publico", "a", "b"]);
    expect(splitGroups(" x ,,y ")).toEqual(["x", "y"]);
  });

  it("only returns to paths of this site after signing in", () => {
    expect(safeNext("/?q=x")).toBe("/?q=x");
    expect(safeNext("//evil.example")).toBe("/");
    expect(safeNext("https://evil.example")).toBe("/");
    expect(safeNext("/\\evil.example")).toBe("/");
    expect(safeNext(null)).toBe("/");
  });
});
