// The session cookie: the search API's own session token (prs_...), kept HttpOnly so page scripts never see it.

export const SESSION_COOKIE = "precedente_session";
/** The API's session lifetime (12 h): the cookie's lifetime when the API gives no usable expires_at. */
export const DEFAULT_SESSION_SECONDS = 12 * 60 * 60;
/** Browsers cap cookies at 400 days; nothing of ours should come near it. */
const MAX_COOKIE_SECONDS = 400 * 24 * 60 * 60;

/** Characters valid both in a cookie value and in an Authorization header: anything else is not our token. */
const TOKEN = /^[A-Za-z0-9._~+/=-]{1,4096}$/;

export function validToken(value: string | null | undefined): string | undefined {
  return value && TOKEN.test(value) ? value : undefined;
}

/** The session token from a Cookie request header, if there is a well-formed one. */
export function sessionTokenFromCookies(cookieHeader: string | null): string | undefined {
  for (const part of (cookieHeader ?? "").split(";")) {
    const at = part.indexOf("=");
    if (at > 0 && part.slice(0, at).trim() === SESSION_COOKIE) return validToken(part.slice(at + 1).trim());
  }
  return undefined;
}

/** Seconds from now until the API's expires_at (ISO 8601), so the cookie dies with the session. */
export function maxAgeFrom(expiresAt: unknown, nowMs = Date.now()): number {
  const at = typeof expiresAt === "string" ? Date.parse(expiresAt) : Number.NaN;
  if (Number.isNaN(at)) return DEFAULT_SESSION_SECONDS;
  return Math.min(MAX_COOKIE_SECONDS, Math.max(1, Math.floor((at - nowMs) / 1000)));
}

/** Behind TLS (directly or through a proxy that says so) the cookie must never travel in clear. */
export function isSecure(request: Request): boolean {
  return new URL(request.url).protocol === "https:" || request.headers.get("x-forwarded-proto") === "https";
}

export function sessionCookie(token: string, maxAgeSeconds: number, secure: boolean): string {
  return [
    `${SESSION_COOKIE}=${token}`,
    "Path=/",
    "HttpOnly",
    "SameSite=Lax",
    `Max-Age=${Math.max(0, Math.floor(maxAgeSeconds))}`,
    ...(secure ? ["Secure"] : []),
  ].join("; ");
}

export function clearedSessionCookie(secure: boolean): string {
  return [`${SESSION_COOKIE}=`, "Path=/", "HttpOnly", "SameSite=Lax", "Max-Age=0", ...(secure ? ["Secure"] : [])].join(
    "; ",
  );
}
