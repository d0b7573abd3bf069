// Local accounts: a JSON file {"username": {"password_hash": "scrypt$...", "groups": ["..."]}}, re-read when it changes.
import { readFileSync, statSync } from "node:fs";
import { NAME_PATTERN } from "./config";
import { DUMMY_HASH, verifyPassword } from "./passwords";

export interface UserRecord {
  password_hash: string;
  groups: string[];
}

export type Users = Map<string, UserRecord>;

let cache: { path: string; mtimeMs: number; size: number; users: Users } | undefined;

export function parseUsers(text: string): Users {
  const data: unknown = JSON.parse(text);
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    throw new Error("the users file must be a JSON object of username -> {password_hash, groups}");
  }
  const users: Users = new Map();
  for (const [name, value] of Object.entries(data as Record<string, unknown>)) {
    const record = value as Partial<UserRecord> | null;
    if (!NAME_PATTERN.test(name)) throw new Error(`invalid user name ${JSON.stringify(name)}`);
    if (!record || typeof record.password_hash !== "string" || !record.password_hash.startsWith("scrypt$")) {
      throw new Error(`user ${name}: password_hash must be a scrypt$... hash (scripts/hash-password.mjs)`);
    }
    const groups = Array.isArray(record.groups) ? record.groups : [];
    for (const group of groups) {
      if (typeof group !== "string" || !(group === "*" || NAME_PATTERN.test(group))) {
        throw new Error(`user ${name}: invalid group ${JSON.stringify(group)}`);
      }
    }
    users.set(name, { password_hash: record.password_hash, groups: groups.filter((g) => g !== "*") });
  }
  return users;
}

export function loadUsers(path: string): Users {
  const stat = statSync(path);
  if (cache && cache.path === path && cache.mtimeMs === stat.mtimeMs && cache.size === stat.size) return cache.users;
  const users = parseUsers(readFileSync(path, "utf8"));
  cache = { path, mtimeMs: stat.mtimeMs, size: stat.size, users };
  return users;
}

/** The user if the password is right; null otherwise, after the same work either way. */
export function authenticate(users: Users, username: string, password: string): UserRecord | null {
  const record = users.get(username);
  const ok = verifyPassword(password, record?.password_hash ?? DUMMY_HASH);
  return record && ok ? record : null;
}
