// Server-side helpers for pages: the caller's identity from the session cookie, and calls to the search service.
import { cookies } from "next/headers";
import { redirect } from "next/navigation";
import { readConfig } from "./config";
import { type Identity, identityFromToken } from "./identity";
import { SESSION_COOKIE } from "./session";

export async function currentIdentity(): Promise<Identity | null> {
  const store = await cookies();
  return identityFromToken(store.get(SESSION_COOKIE)?.value, readConfig());
}

/** The identity, or a redirect to the sign-in page that comes back to `path`. */
export async function requireIdentity(path: string): Promise<Identity> {
  const identity = await currentIdentity();
  if (!identity) redirect(`/login?next=${encodeURIComponent(path)}`);
  return identity;
}

/** GET a search-service route as the caller (server components). */
export async function apiGet<T>(path: string, identity: Identity): Promise<T> {
  const config = readConfig();
  const response = await fetch(`${config.apiUrl}${path}`, {
    headers: { accept: "application/json", [config.userHeader]: identity.user, [config.groupsHeader]: identity.groups.join(",") },
    cache: "no-store",
  });
  if (!response.ok) throw new Error(`${path}: ${response.status}`);
  return (await response.json()) as T;
}

/** Only a path of this site is a place to go back to after signing in (no //host, no scheme). */
export function safeNext(next: string | null | undefined): string {
  if (!next || !next.startsWith("/") || next.startsWith("//") || next.startsWith("/\\")) return "/";
  return next;
}
