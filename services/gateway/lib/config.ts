// The gateway's configuration: the same PRECEDENTE_* variables as shared/settings.py.
// Identity (accounts, sessions, demo mode) lives in the search API; the gateway only needs to reach it.

export interface GatewayConfig {
  /** Base URL of the search service. */
  apiUrl: string;
}

export function readConfig(env: Record<string, string | undefined> = process.env): GatewayConfig {
  return { apiUrl: (env.PRECEDENTE_API_URL || "http://127.0.0.1:8000").replace(/\/+$/, "") };
}
