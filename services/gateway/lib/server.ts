// Server-side helpers for pages: the caller's identity (asked of the search API), and calls to it as the caller.
import { cookies } from "next/headers";
import { redirect } from "next/navigation";
import { cache } from "react";
import { readConfig } from "./config";
import { bearer, fetchIdentity, type Identity } from "./identity";
import { loginPath, requiredChangePath } from "./navigation";
import { SESSION_COOKIE, validToken } from "./session";

async function sessionToken(): Promise<string | undefined> {
  return validToken((await cookies()).get(SESSION_COOKIE)?.value);
}

/** Asked once per request, however many components (layout, page) want it. Throws when the API is down. */
export const currentIdentity = cache(async (): Promise<Identity | null> => fetchIdentity(readConfig(), await sessionToken()));

/**
 * The identity, or a redirect to the sign-in page that comes back to `path` (never in demo mode). A person
 * whose password must be changed first goes to the password form, whatever page was asked for.
 */
export async function requireIdentity(path: string): Promise<Identity> {
  const identity = await currentIdentity();
  if (!identity) redirect(loginPath(path));
  if (identity.mustChangePassword && !path.startsWith("/senha")) redirect(requiredChangePath(path));
  return identity;
}

/** GET a search-service route as the caller (server components); a refused session goes to sign-in. */
export async function apiGet<T>(path: string, returnTo: string): Promise<T> {
  const config = readConfig();
  const response = await fetch(`${config.apiUrl}${path}`, {
    headers: { accept: "application/json", ...bearer(await sessionToken()) },
    cache: "no-store",
  });
  if (response.status === 401) redirect(loginPath(returnTo));
  if (!response.ok) throw new Error(`${path}: ${response.status}`);
  return (await response.json()) as T;
}
