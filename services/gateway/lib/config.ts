// The gateway's configuration: the same PRECEDENTE_* variables as shared/settings.py.
import { randomBytes } from "node:crypto";

export interface GatewayConfig {
  /** Base URL of the search service. */
  apiUrl: string;
  /** Path of the users file; empty means demo mode (no sign-in). */
  usersFile: string;
  /** HMAC key of the session cookie. */
  secret: string;
  /** Groups of the anonymous identity in demo mode. */
  demoGroups: string[];
  userHeader: string;
  groupsHeader: string;
}

let ephemeralSecret: string | undefined;

/** A name safe in an HTTP header and in the search service's comma-separated groups list. */
export const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._@+-]{0,99}$/;

export function splitGroups(raw: string | undefined): string[] {
  return (raw ?? "")
    .split(",")
    .map((g) => g.trim())
    .filter((g) => g !== "" && g !== "*" && NAME_PATTERN.test(g));
}

export function readConfig(env: Record<string, string | undefined> = process.env): GatewayConfig {
  let secret = env.PRECEDENTE_GATEWAY_SECRET ?? "";
  if (!secret) {
    // Sessions then last as long as this process: fine for one machine, set the variable in production.
    ephemeralSecret ??= randomBytes(32).toString("hex");
    secret = ephemeralSecret;
  }
  return {
    apiUrl: (env.PRECEDENTE_API_URL || "http://127.0.0.1:8000").replace(/\/+$/, ""),
    usersFile: env.PRECEDENTE_GATEWAY_USERS_FILE ?? "",
    secret,
    demoGroups: splitGroups(env.PRECEDENTE_GATEWAY_DEMO_GROUPS),
    userHeader: env.PRECEDENTE_IDENTITY_USER_HEADER || "X-Precedente-User",
    groupsHeader: env.PRECEDENTE_IDENTITY_GROUPS_HEADER || "X-Precedente-Groups",
  };
}
