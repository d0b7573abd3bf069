// Who is asking, as the search API says (GET /auth/me with the session's bearer): the gateway keeps no accounts.
import type { GatewayConfig } from "./config";

export type AuthMode = "required" | "none";

export interface Identity {
  user: string;
  /** "user" (a person signed in), "key", "oidc", or "anonymous" (demo mode). */
  kind: string;
  groups: string[];
  roles: string[];
  scopes: string[];
  /** What the caller may do (GET /auth/me's permissions: search, ingest, review, admin); menus show only these. */
  permissions: string[];
  authMode: AuthMode;
  /** The API runs without authentication (PRECEDENTE_AUTH_MODE=none): the page says so on every page. */
  demo: boolean;
  /** A password someone else chose (the first administrator's): the API refuses everything but changing it. */
  mustChangePassword: boolean;
}

/** The API could not say who is asking (down, or an answer we do not understand). */
export class IdentityUnavailable extends Error {}

const TIMEOUT_MS = 10_000;

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

/** An API older than `permissions` in /auth/me: shared/accounts.py Identity.permissions, from kind, roles and scopes. */
function impliedPermissions(data: Record<string, unknown>): string[] {
  const all = ["search", "ingest", "review", "admin"];
  const roles = strings(data.roles);
  const scopes = strings(data.scopes);
  if (data.kind === "key") return scopes.includes("admin") ? all : all.filter((p) => scopes.includes(p));
  if (roles.includes("admin")) return all;
  const review = roles.includes("reviewer") || data.kind === "anonymous";
  return review ? ["search", "ingest", "review"] : ["search", "ingest"];
}

/** Whether the caller may do this (a menu entry, a button): the API still decides, and refuses otherwise. */
export function may(identity: Pick<Identity, "permissions"> | null | undefined, permission: string): boolean {
  return identity?.permissions.includes(permission) ?? false;
}

/** The pages of the menu this caller may use, in order. */
export function menuFor(identity: Pick<Identity, "permissions"> | null | undefined): { href: string; label: string }[] {
  const entries = [
    { href: "/", label: "Pesquisa", needs: ["search"] },
    { href: "/pastas", label: "Pastas", needs: ["search"] },
    { href: "/pesquisas", label: "Pesquisas salvas", needs: ["search"] },
    { href: "/historico", label: "Histórico", needs: ["search"] },
    { href: "/ingestao", label: "Ingestão", needs: ["ingest"] },
    { href: "/revisao", label: "Revisão", needs: ["review"] },
    { href: "/tesauro", label: "Tesauro", needs: ["admin"] },
  ];
  return entries.filter((e) => e.needs.some((p) => may(identity, p))).map(({ href, label }) => ({ href, label }));
}

/** GET /auth/me's JSON as an Identity, or null when it is not one. */
export function parseIdentity(body: unknown): Identity | null {
  if (typeof body !== "object" || body === null) return null;
  const data = body as Record<string, unknown>;
  if (typeof data.user !== "string" || (data.auth_mode !== "required" && data.auth_mode !== "none")) return null;
  return {
    user: data.user,
    kind: typeof data.kind === "string" ? data.kind : "user",
    groups: strings(data.groups),
    roles: strings(data.roles),
    scopes: strings(data.scopes),
    permissions: Array.isArray(data.permissions) ? strings(data.permissions) : impliedPermissions(data),
    authMode: data.auth_mode,
    demo: data.auth_mode === "none",
    mustChangePassword: data.must_change_password === true,
  };
}

export function bearer(token: string | undefined): Record<string, string> {
  return token ? { authorization: `Bearer ${token}` } : {};
}

/**
 * The caller's identity; null when the API refuses the credential (none, expired, revoked): sign in again.
 * Without a token it is still asked, since only the API knows whether it runs in demo mode.
 */
export async function fetchIdentity(config: GatewayConfig, token: string | undefined): Promise<Identity | null> {
  let response: Response;
  try {
    response = await fetch(`${config.apiUrl}/auth/me`, {
      headers: { accept: "application/json", ...bearer(token) },
      cache: "no-store",
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (err) {
    throw new IdentityUnavailable(`GET /auth/me: ${String(err)}`);
  }
  if (response.status === 401) return null;
  if (!response.ok) throw new IdentityUnavailable(`GET /auth/me: ${response.status}`);
  const identity = parseIdentity(await response.json().catch(() => null));
  if (!identity) throw new IdentityUnavailable("GET /auth/me: unexpected answer");
  return identity;
}
