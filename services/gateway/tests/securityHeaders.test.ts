import { NextRequest } from "next/server";
import { describe, expect, it } from "vitest";
import nextConfig from "../next.config";
import { config as proxyConfig, proxy } from "../proxy";
import { contentSecurityPolicy, SECURITY_HEADERS } from "../lib/securityHeaders";

function directives(policy: string): Record<string, string> {
  return Object.fromEntries(
    policy.split(";").map((d) => {
      const [name, ...values] = d.trim().split(/\s+/);
      return [name, values.join(" ")];
    }),
  );
}

describe("next.config.ts headers()", () => {
  it("puts the security headers on every path, /api/* included", async () => {
    const rules = await nextConfig.headers!();
    expect(rules).toHaveLength(1);
    expect(rules[0]!.source).toBe("/:path*");
    const headers = Object.fromEntries(rules[0]!.headers.map((h) => [h.key, h.value]));
    expect(headers).toEqual({
      "Content-Security-Policy": contentSecurityPolicy(),
      "X-Content-Type-Options": "nosniff",
      "Referrer-Policy": "same-origin",
      "X-Frame-Options": "DENY",
      "Permissions-Policy": "camera=(), microphone=(), geolocation=()",
      "Cross-Origin-Opener-Policy": "same-origin",
    });
    expect(Object.keys(headers).filter((k) => /^access-control-/i.test(k))).toEqual([]);
    expect(nextConfig.poweredByHeader).toBe(false);
  });

  it("has the policy's directives", () => {
    const csp = directives(contentSecurityPolicy());
    expect(csp["default-src"]).toBe("'self'");
    expect(csp["script-src"]).toBe("'self' 'unsafe-inline'");
    expect(csp["style-src"]).toBe("'self' 'unsafe-inline'");
    expect(csp["img-src"]).toBe("'self' data: blob:");
    expect(csp["object-src"]).toBe("'none'");
    expect(csp["frame-ancestors"]).toBe("'none'");
    expect(csp["base-uri"]).toBe("'self'");
    expect(csp["form-action"]).toBe("'self'");
    expect(SECURITY_HEADERS.every((h) => !/[\r\n]/.test(h.value))).toBe(true);
  });
});

describe("proxy.ts: a nonce CSP per page", () => {
  it("gives each page request its own nonce, in the response policy and in the one Next renders with", () => {
    const nonces = new Set<string>();
    for (let i = 0; i < 3; i += 1) {
      const response = proxy(new NextRequest("http://gw.test/revisao"));
      const policy = response.headers.get("content-security-policy") ?? "";
      const script = directives(policy)["script-src"] ?? "";
      const nonce = /'nonce-([A-Za-z0-9+/=]{22,})'/.exec(script)?.[1];
      expect(nonce).toBeDefined();
      expect(script).toContain("'strict-dynamic'");
      // NextResponse.next({ request: { headers } }) passes the overridden request headers to the renderer this way.
      expect(response.headers.get("x-middleware-request-content-security-policy")).toBe(policy);
      expect(directives(policy)["frame-ancestors"]).toBe("'none'");
      nonces.add(nonce!);
    }
    expect(nonces.size).toBe(3);
  });

  it("runs on pages, not on /api/* or static files", () => {
    const source = proxyConfig.matcher[0]!.source;
    const matches = (path: string) => new RegExp(`^${source}$`).test(path);
    expect(matches("/")).toBe(true);
    expect(matches("/revisao")).toBe(true);
    expect(matches("/login")).toBe(true);
    expect(matches("/api/search")).toBe(false);
    expect(matches("/_next/static/chunks/a.js")).toBe(false);
  });
});
