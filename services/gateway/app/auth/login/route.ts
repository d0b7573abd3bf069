import { readConfig } from "../../../lib/config";
import { sameOrigin } from "../../../lib/proxy";
import { safeNext } from "../../../lib/server";
import { sessionCookie, signSession } from "../../../lib/session";
import { authenticate, loadUsers } from "../../../lib/users";

export const dynamic = "force-dynamic";

function isSecure(request: Request): boolean {
  return new URL(request.url).protocol === "https:" || request.headers.get("x-forwarded-proto") === "https";
}

function seeOther(location: string, cookie?: string): Response {
  const headers = new Headers({ Location: location, "Cache-Control": "no-store" });
  if (cookie) headers.append("Set-Cookie", cookie);
  return new Response(null, { status: 303, headers });
}

export async function POST(request: Request): Promise<Response> {
  const config = readConfig();
  if (!sameOrigin(request.method, request.headers)) return new Response("origem não permitida", { status: 403 });
  const form = await request.formData().catch(() => new FormData());
  const next = safeNext(String(form.get("next") ?? "/"));
  if (!config.usersFile) return seeOther(next); // demo mode: nobody signs in
  const username = String(form.get("username") ?? "").trim();
  const password = String(form.get("password") ?? "");
  let users;
  try {
    users = loadUsers(config.usersFile);
  } catch (err) {
    console.error(`precedente gateway: cannot read the users file ${config.usersFile}: ${String(err)}`);
    return seeOther(`/login?erro=indisponivel&next=${encodeURIComponent(next)}`);
  }
  if (!authenticate(users, username, password)) {
    return seeOther(`/login?erro=credenciais&next=${encodeURIComponent(next)}`);
  }
  return seeOther(next, sessionCookie(signSession(username, config.secret), isSecure(request)));
}
