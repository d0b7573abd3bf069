// Sign-in and sign-out against the search API (POST /auth/login, /auth/logout): the API owns accounts and sessions.
import type { GatewayConfig } from "./config";
import { bearer } from "./identity";
import { problemDetail } from "./problem";
import { validToken } from "./session";

export type LoginResult =
  // mustChangePassword: the API lets this session do nothing but change the password (the first administrator's).
  | { kind: "ok"; token: string; expiresAt: string | undefined; mustChangePassword: boolean }
  | { kind: "refused" }
  | { kind: "throttled" }
  | { kind: "unavailable"; reason: string };

const TIMEOUT_MS = 15_000;
/** The API's own minimum length of a password (shared/accounts.py), said on the form before asking it. */
export const MIN_PASSWORD = 12;

export async function apiLogin(config: GatewayConfig, user: string, password: string): Promise<LoginResult> {
  let response: Response;
  try {
    response = await fetch(`${config.apiUrl}/auth/login`, {
      method: "POST",
      headers: { accept: "application/json", "content-type": "application/json" },
      body: JSON.stringify({ user, password }),
      cache: "no-store",
      redirect: "manual",
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (err) {
    return { kind: "unavailable", reason: String(err) };
  }
  if (response.status === 429) return { kind: "throttled" };
  if (response.status >= 500 || (response.status >= 300 && response.status < 400)) {
    return { kind: "unavailable", reason: `POST /auth/login: ${response.status}` };
  }
  if (response.status !== 200) return { kind: "refused" }; // 401, or 4xx for a malformed name
  const body = (await response.json().catch(() => null)) as {
    token?: unknown;
    expires_at?: unknown;
    must_change_password?: unknown;
  } | null;
  const token = validToken(typeof body?.token === "string" ? body.token : undefined);
  if (!token) return { kind: "unavailable", reason: "POST /auth/login: no usable token in the answer" };
  return {
    kind: "ok",
    token,
    expiresAt: typeof body?.expires_at === "string" ? body.expires_at : undefined,
    mustChangePassword: body?.must_change_password === true,
  };
}

/** Ends the session at the API, so the token stops working even if a copy of the cookie survives. */
export async function apiLogout(config: GatewayConfig, token: string): Promise<boolean> {
  try {
    const response = await fetch(`${config.apiUrl}/auth/logout`, {
      method: "POST",
      headers: { accept: "application/json", ...bearer(token) },
      cache: "no-store",
      redirect: "manual",
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    await response.arrayBuffer().catch(() => undefined); // drained (a small answer) so the connection is reused
    return response.ok || response.status === 401; // 401: already ended
  } catch {
    return false;
  }
}

export type PasswordChangeResult =
  | { kind: "ok" }
  | { kind: "wrong" } // the current password is not right
  | { kind: "refused"; reason: string } // the new one is not accepted (too short, the same)
  | { kind: "throttled" }
  | { kind: "expired" } // the session is no longer valid: sign in again
  | { kind: "unavailable"; reason: string };

/** POST /auth/password as the signed-in person: the API checks the current password and ends their other sessions. */
export async function apiChangePassword(
  config: GatewayConfig,
  token: string,
  currentPassword: string,
  newPassword: string,
): Promise<PasswordChangeResult> {
  let response: Response;
  try {
    response = await fetch(`${config.apiUrl}/auth/password`, {
      method: "POST",
      headers: { accept: "application/json", "content-type": "application/json", ...bearer(token) },
      body: JSON.stringify({ current_password: currentPassword, new_password: newPassword }),
      cache: "no-store",
      redirect: "manual",
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (err) {
    return { kind: "unavailable", reason: String(err) };
  }
  const body: unknown = await response.json().catch(() => null); // a problem document on errors
  switch (response.status) {
    case 204:
      return { kind: "ok" };
    case 401:
      return { kind: "expired" };
    case 403:
      return { kind: "wrong" };
    case 422:
      return { kind: "refused", reason: problemDetail(body) ?? "senha não aceita" };
    case 429:
      return { kind: "throttled" };
    default:
      return { kind: "unavailable", reason: `POST /auth/password: ${response.status}` };
  }
}
