// The session cookie: "<base64url JSON {u, exp}>.<base64url HMAC-SHA256>", HttpOnly and SameSite=Lax.
import { createHmac, timingSafeEqual } from "node:crypto";

export const SESSION_COOKIE = "precedente_session";
export const SESSION_TTL_SECONDS = 12 * 60 * 60;

function mac(payload: string, secret: string): string {
  return createHmac("sha256", secret).update(payload).digest("base64url");
}

export function signSession(username: string, secret: string, nowSeconds = Date.now() / 1000): string {
  const payload = Buffer.from(JSON.stringify({ u: username, exp: Math.floor(nowSeconds) + SESSION_TTL_SECONDS })).toString(
    "base64url",
  );
  return `${payload}.${mac(payload, secret)}`;
}

/** The signed-in user name, or null for a missing, forged or expired cookie. */
export function verifySession(token: string | undefined, secret: string, nowSeconds = Date.now() / 1000): string | null {
  if (!token) return null;
  const [payload, signature, ...rest] = token.split(".");
  if (!payload || !signature || rest.length > 0) return null;
  const expected = Buffer.from(mac(payload, secret));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
  try {
    const data = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as { u?: unknown; exp?: unknown };
    if (typeof data.u !== "string" || typeof data.exp !== "number" || data.exp <= nowSeconds) return null;
    return data.u;
  } catch {
    return null;
  }
}

export function sessionCookie(token: string, secure: boolean): string {
  return [
    `${SESSION_COOKIE}=${token}`,
    "Path=/",
    "HttpOnly",
    "SameSite=Lax",
    `Max-Age=${SESSION_TTL_SECONDS}`,
    ...(secure ? ["Secure"] : []),
  ].join("; ");
}

export function clearedSessionCookie(secure: boolean): string {
  return [`${SESSION_COOKIE}=`, "Path=/", "HttpOnly", "SameSite=Lax", "Max-Age=0", ...(secure ? ["Secure"] : [])].join(
    "; ",
  );
}
