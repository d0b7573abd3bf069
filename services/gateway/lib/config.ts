// The gateway's configuration: the same PRECEDENTE_* variables as shared/settings.py.
// Identity (accounts, sessions, demo mode) lives in the search API; the gateway only needs to reach it.

export interface GatewayConfig {
  /** Base URL of the search service. */
  apiUrl: string;
  /**
   * The origins the page is served from (PRECEDENTE_PUBLIC_ORIGIN, comma-separated: "https://precedente.firma.com.br"),
   * the only ones a state-changing request may come from; empty: the request's own Host. Set it behind a reverse
   * proxy that rewrites Host: a forwarded header is the client's to forge, so it is never trusted for this.
   */
  publicOrigins: string[];
}

export function readConfig(env: Record<string, string | undefined> = process.env): GatewayConfig {
  const publicOrigins = (env.PRECEDENTE_PUBLIC_ORIGIN ?? "")
    .split(",")
    .map((origin) => origin.trim())
    .filter(Boolean)
    .map((origin) => new URL(origin).origin); // "https://x.example/" and "https://x.example" alike; a typo throws
  return { apiUrl: (env.PRECEDENTE_API_URL || "http://127.0.0.1:8000").replace(/\/+$/, ""), publicOrigins };
}
