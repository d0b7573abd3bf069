// The sign-in form posts here; the search API checks the password and hands back a session token for the cookie.
import { apiLogin } from "../../../lib/authApi";
import { readConfig } from "../../../lib/config";
import { loginPath, requiredChangePath, safeNext } from "../../../lib/navigation";
import { problemResponse } from "../../../lib/problem";
import { sameOrigin } from "../../../lib/proxy";
import { isSecure, maxAgeFrom, sessionCookie } from "../../../lib/session";

export const dynamic = "force-dynamic";

// Longer than any real name or passphrase: the API is not asked to hash megabytes.
const MAX_USER = 200;
const MAX_PASSWORD = 1024;

function seeOther(location: string, cookie?: string): Response {
  const headers = new Headers({ Location: location, "Cache-Control": "no-store" });
  if (cookie) headers.append("Set-Cookie", cookie);
  return new Response(null, { status: 303, headers });
}

export async function POST(request: Request): Promise<Response> {
  if (!sameOrigin(request.method, request.headers)) return problemResponse(403, "origem não permitida");
  const form = await request.formData().catch(() => new FormData());
  const next = safeNext(String(form.get("next") ?? "/"));
  const user = String(form.get("username") ?? "").trim();
  const password = String(form.get("password") ?? "");
  if (!user || !password || user.length > MAX_USER || password.length > MAX_PASSWORD) {
    return seeOther(loginPath(next, "credenciais"));
  }
  const result = await apiLogin(readConfig(), user, password);
  switch (result.kind) {
    case "ok": {
      // A password someone else chose (the first administrator's): the change form first, then where they were going.
      const to = result.mustChangePassword ? requiredChangePath(next) : next;
      return seeOther(to, sessionCookie(result.token, maxAgeFrom(result.expiresAt), isSecure(request)));
    }
    case "refused":
      return seeOther(loginPath(next, "credenciais"));
    case "throttled":
      return seeOther(loginPath(next, "tentativas"));
    case "unavailable":
      console.error(`precedente gateway: sign-in unavailable: ${result.reason}`);
      return seeOther(loginPath(next, "indisponivel"));
  }
}
