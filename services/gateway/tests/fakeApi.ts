// A real HTTP server on 127.0.0.1 that speaks the search API's identity JSON (services/search/auth.py's
// contract), so the gateway's routes are tested over the wire, with their real fetch, not a mocked one.
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

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

export interface FakeApi {
  url: string;
  seen: Seen[];
  /** The answers, set per test. */
  handle: Handler;
  close(): Promise<void>;
}

export const ACCOUNTS: Record<string, { password: string; groups: string[]; roles: string[] }> = {
  ana: { password: "ana-senha-forte", groups: ["socios"], roles: [] },
};

/** The API's behaviour for the identity routes: login, logout, /auth/me, and 401 for anything unauthenticated. */
export function identityApi(options: { authMode?: "required" | "none"; sessions?: Map<string, string> } = {}): Handler {
  const sessions = options.sessions ?? new Map<string, string>();
  const authMode = options.authMode ?? "required";
  const passwords = new Map(Object.entries(ACCOUNTS).map(([name, account]) => [name, account.password]));
  return ({ method, path, headers, body }) => {
    const token = /^Bearer (\S+)$/.exec(headers.authorization ?? "")?.[1];
    const user = token ? sessions.get(token) : undefined;
    if (method === "POST" && path === "/auth/login") {
      const { user: name, password } = JSON.parse(body) as { user: string; password: string };
      const account = ACCOUNTS[name];
      if (!account || passwords.get(name) !== password) return { status: 401, json: { detail: "usuário ou senha incorretos" } };
      const issued = `prs_${"x".repeat(39)}${sessions.size.toString().padStart(4, "0")}`;
      sessions.set(issued, name);
      const expires = new Date(Date.now() + 12 * 3600 * 1000).toISOString();
      return { status: 200, json: { token: issued, user: name, groups: account.groups, roles: account.roles, expires_at: expires } };
    }
    if (method === "POST" && path === "/auth/logout") {
      if (!user || !token) return { status: 401, json: { detail: "sessão inválida" }, headers: { "www-authenticate": "Bearer" } };
      sessions.delete(token);
      return { status: 204 };
    }
    if (method === "POST" && path === "/auth/password") {
      if (!user || !token) return { status: 401, json: { detail: "sessão inválida" }, headers: { "www-authenticate": "Bearer" } };
      const change = JSON.parse(body) as { current_password: string; new_password: string };
      if (passwords.get(user) !== change.current_password) return { status: 403, json: { detail: "a senha atual está incorreta" } };
      if (change.new_password.length < 12) return { status: 422, json: { detail: "a password needs at least 12 characters" } };
      if (change.new_password === change.current_password) return { status: 422, json: { detail: "the new password is the current one" } };
      passwords.set(user, change.new_password);
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
    if (!user) return { status: 401, json: { detail: "credencial ausente ou inválida" }, headers: { "www-authenticate": "Bearer" } };
    if (path === "/auth/me") {
      const account = ACCOUNTS[user]!;
      return {
        status: 200,
        json: { user, kind: "user", groups: account.groups, roles: account.roles, scopes: ["search", "ingest"], auth_mode: "required" },
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
