// The password form posts here; the search API checks the current password, sets the new one and ends the
// person's other sessions (this one goes on).
import { apiChangePassword, MIN_PASSWORD } from "../../../lib/authApi";
import { readConfig } from "../../../lib/config";
import { loginPath, safeNext } from "../../../lib/navigation";
import { problemResponse } from "../../../lib/problem";
import { sameOrigin } from "../../../lib/proxy";
import { sessionTokenFromCookies } from "../../../lib/session";

export const dynamic = "force-dynamic";

const MAX_PASSWORD = 1024; // as at sign-in: the API is not asked to hash megabytes

function seeOther(location: string): Response {
  return new Response(null, { status: 303, headers: { Location: location, "Cache-Control": "no-store" } });
}

/** Back to the form with what happened; a required change keeps its `obrigatoria` and `next` until it is done. */
function back(code: string, required?: string): Response {
  const params = new URLSearchParams({ [code === "ok" ? "ok" : "erro"]: code });
  if (required !== undefined && code !== "ok") {
    params.set("obrigatoria", "1");
    params.set("next", required);
  }
  if (required !== undefined && code === "ok") params.set("next", required);
  return seeOther(`/senha?${params.toString()}`);
}

export async function POST(request: Request): Promise<Response> {
  if (!sameOrigin(request.method, request.headers)) return problemResponse(403, "origem não permitida");
  const token = sessionTokenFromCookies(request.headers.get("cookie"));
  if (!token) return seeOther(loginPath("/senha"));
  const form = await request.formData().catch(() => new FormData());
  const current = String(form.get("current_password") ?? "");
  const chosen = String(form.get("new_password") ?? "");
  const again = String(form.get("confirm_password") ?? "");
  // Set by the form of a required change (the first administrator's): where to go once it is done.
  const required = form.has("next") ? safeNext(String(form.get("next"))) : undefined;
  if (!current || current.length > MAX_PASSWORD) return back("atual", required);
  if (chosen !== again) return back("diferentes", required);
  if (chosen.length < MIN_PASSWORD || chosen.length > MAX_PASSWORD) return back("curta", required);
  const result = await apiChangePassword(readConfig(), token, current, chosen);
  switch (result.kind) {
    case "ok":
      return back("ok", required);
    case "wrong":
      return back("atual", required);
    case "refused":
      return back(chosen === current ? "igual" : "curta", required);
    case "throttled":
      return back("tentativas", required);
    case "expired":
      return seeOther(loginPath("/senha"));
    case "unavailable":
      console.error(`precedente gateway: password change unavailable: ${result.reason}`);
      return back("indisponivel", required);
  }
}
