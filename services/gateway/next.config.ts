import path from "node:path";
import { fileURLToPath } from "node:url";
import type { NextConfig } from "next";
import { SECURITY_HEADERS } from "./lib/securityHeaders";

const here = path.dirname(fileURLToPath(import.meta.url));

const nextConfig: NextConfig = {
  // A self-contained server (node .next/standalone/server.js): what `precedente up` and the image run.
  output: "standalone",
  outputFileTracingRoot: here,
  turbopack: { root: here },
  poweredByHeader: false,
  reactStrictMode: true,
  async headers() {
    // Every response, /api/* included; pages get a per-request nonce CSP in place of this one (proxy.ts).
    return [{ source: "/:path*", headers: [...SECURITY_HEADERS] }];
  },
};

export default nextConfig;
