// Next.js "proxy" (formerly middleware), run before every page: a fresh CSP nonce, so only Next's own scripts run.
// Next reads the nonce from the request's Content-Security-Policy header and puts it on the scripts it renders.
import { type NextRequest, NextResponse } from "next/server";
import { contentSecurityPolicy, newNonce } from "./lib/securityHeaders";

export function proxy(request: NextRequest): NextResponse {
  const policy = contentSecurityPolicy(newNonce());
  const headers = new Headers(request.headers);
  headers.set("content-security-policy", policy);
  const response = NextResponse.next({ request: { headers } });
  // Replaces next.config.ts's nonce-less policy for this response: one policy, the strict one.
  response.headers.set("Content-Security-Policy", policy);
  return response;
}

export const config = {
  // Pages only: /api/* and static files are not HTML and keep next.config.ts's headers as they are.
  matcher: [
    {
      source: "/((?!api/|_next/static/|_next/image|favicon.ico|healthz).*)",
      missing: [
        { type: "header", key: "next-router-prefetch" },
        { type: "header", key: "purpose", value: "prefetch" },
      ],
    },
  ],
};
