// Sign-out: the API ends the session (the token dies everywhere), then the cookie is cleared here.
import { apiLogout } from "../../../lib/authApi";
import { readConfig } from "../../../lib/config";
import { problemResponse } from "../../../lib/problem";
import { sameOrigin } from "../../../lib/proxy";
import { clearedSessionCookie, isSecure, sessionTokenFromCookies } from "../../../lib/session";

export const dynamic = "force-dynamic";

export async function POST(request: Request): Promise<Response> {
  if (!sameOrigin(request.method, request.headers)) return problemResponse(403, "origem não permitida");
  const token = sessionTokenFromCookies(request.headers.get("cookie"));
  if (token && !(await apiLogout(readConfig(), token))) {
    // The cookie goes anyway; the token then lapses at its expiry (12 h) instead of now.
    console.error("precedente gateway: POST /auth/logout failed; the session ends at its expiry");
  }
  return new Response(null, {
    status: 303,
    headers: { Location: "/login", "Set-Cookie": clearedSessionCookie(isSecure(request)), "Cache-Control": "no-store" },
  });
}
