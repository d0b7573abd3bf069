// Who is asking: the signed-in user (users file) or, in demo mode, one anonymous identity.
import type { GatewayConfig } from "./config";
import { verifySession } from "./session";
import { loadUsers } from "./users";

export interface Identity {
  user: string;
  groups: string[];
  demo: boolean;
}

export const DEMO_USER = "demonstracao";

export function isDemo(config: GatewayConfig): boolean {
  return config.usersFile === "";
}

/** The caller's identity, or null when sign-in is required and the cookie is missing or invalid. */
export function identityFromToken(token: string | undefined, config: GatewayConfig): Identity | null {
  if (isDemo(config)) return { user: DEMO_USER, groups: config.demoGroups, demo: true };
  const username = verifySession(token, config.secret);
  if (!username) return null;
  const record = loadUsers(config.usersFile).get(username); // removed users lose access at once
  return record ? { user: username, groups: record.groups, demo: false } : null;
}
