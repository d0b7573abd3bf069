import { clearedSessionCookie } from "../../../lib/session";

export const dynamic = "force-dynamic";

export function POST(request: Request): Response {
  const secure = new URL(request.url).protocol === "https:" || request.headers.get("x-forwarded-proto") === "https";
  return new Response(null, {
    status: 303,
    headers: { Location: "/login", "Set-Cookie": clearedSessionCookie(secure), "Cache-Control": "no-store" },
  });
}
