// Password hashes of the users file: "scrypt$N$r$p$<salt base64>$<hash base64>" (Node's crypto.scrypt).
import { randomBytes, scryptSync, timingSafeEqual } from "node:crypto";

const KEY_LENGTH = 32;

export function hashPassword(password: string, salt: Buffer = randomBytes(16), n = 16384, r = 8, p = 1): string {
  const hash = scryptSync(password.normalize("NFC"), salt, KEY_LENGTH, { N: n, r, p });
  return `scrypt$${n}$${r}$${p}$${salt.toString("base64")}$${hash.toString("base64")}`;
}

export function verifyPassword(password: string, stored: string): boolean {
  const parts = stored.split("$");
  if (parts.length !== 6 || parts[0] !== "scrypt") return false;
  const [n, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  if (![n, r, p].every(Number.isInteger) || n < 2 || n > 2 ** 20 || r < 1 || r > 32 || p < 1 || p > 16) return false;
  const salt = Buffer.from(parts[4] ?? "", "base64");
  const expected = Buffer.from(parts[5] ?? "", "base64");
  if (salt.length === 0 || expected.length === 0) return false;
  const actual = scryptSync(password.normalize("NFC"), salt, expected.length, { N: n, r, p, maxmem: 256 * n * r + 1024 * 1024 });
  return timingSafeEqual(actual, expected);
}

/** Spent on unknown user names, so a refusal takes as long whether the user exists or not. */
export const DUMMY_HASH = hashPassword("precedente", Buffer.alloc(16, 7));
