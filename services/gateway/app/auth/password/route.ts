// The password form posts here; the search API checks the current password, sets the new one and ends the
// person's other sessions (this one goes on).
import { apiChangePassword, MIN_PASSWORD } from "../../../lib/authApi";
import { readConfig } from "../../../lib/config";
import { loginPath } from "../../../lib/navigation";
import { sameOrigin } from "../../../lib/proxy";
import { sessionTokenFromCookies } from "../../../lib/session";

export const dynamic = "force-dynamic";

const MAX_PASSWORD = 1024; // as at sign-in: the API is not asked to hash megabytes

function seeOther(location: string): Response {
  return new Response(null, { status: 303, headers: { Location: location, "Cache-Control": "no-store" } });
}

const back = (code: string): Response => seeOther(`/senha?${new URLSearchParams({ [code === "ok" ? "ok" : "erro"]: code })}`);

export async function POST(request: Request): Promise<Response> {
  if (!sameOrigin(request.method, request.headers)) return new Response("origem não permitida", { status: 403 });
  const token = sessionTokenFromCookies(request.headers.get("cookie"));
  if (!token) return seeOther(loginPath("/senha"));
  const form = await request.formData().catch(() => new FormData());
  const current = String(form.get("current_password") ?? "");
  const chosen = String(form.get("new_password") ?? "");
  const again = String(form.get("confirm_password") ?? "");
  if (!current || current.length > MAX_PASSWORD) return back("atual");
  if (chosen !== again) return back("diferentes");
  if (chosen.length < MIN_PASSWORD || chosen.length > MAX_PASSWORD) return back("curta");
  const result = await apiChangePassword(readConfig(), token, current, chosen);
  switch (result.kind) {
    case "ok":
      return back("ok");
    case "wrong":
      return back("atual");
    case "refused":
      return back(chosen === current ? "igual" : "curta");
    case "throttled":
      return back("tentativas");
    case "expired":
      return seeOther(loginPath("/senha"));
    case "unavailable":
      console.error(`precedente gateway: password change unavailable: ${result.reason}`);
      return back("indisponivel");
  }
}
