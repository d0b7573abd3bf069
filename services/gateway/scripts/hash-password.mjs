#!/usr/bin/env node
// Prints the scrypt hash of a password for the gateway's users file (PRECEDENTE_GATEWAY_USERS_FILE):
//   node scripts/hash-password.mjs            (asks for the password; or pipe it on standard input)
//   node scripts/hash-password.mjs --user ana --groups socios,contencioso   (prints a whole users-file entry)
// Format: scrypt$N$r$p$<salt base64>$<hash base64>, as lib/passwords.ts verifies it.
import { randomBytes, scryptSync } from "node:crypto";
import { createInterface } from "node:readline";

const N = 16384;
const R = 8;
const P = 1;

function hash(password) {
  const salt = randomBytes(16);
  const key = scryptSync(password.normalize("NFC"), salt, 32, { N, r: R, p: P });
  return `scrypt$${N}$${R}$${P}$${salt.toString("base64")}$${key.toString("base64")}`;
}

function option(name) {
  const index = process.argv.indexOf(`--${name}`);
  return index > 0 ? process.argv[index + 1] : undefined;
}

async function readPassword() {
  const rl = createInterface({ input: process.stdin, output: process.stdin.isTTY ? process.stderr : undefined, terminal: false });
  if (process.stdin.isTTY) process.stderr.write("Senha: ");
  for await (const line of rl) {
    rl.close();
    return line;
  }
  return "";
}

const password = await readPassword();
if (password.length < 8) {
  console.error("a senha precisa de ao menos 8 caracteres");
  process.exit(2);
}
const user = option("user");
if (user) {
  const groups = (option("groups") ?? "").split(",").map((g) => g.trim()).filter(Boolean);
  console.log(JSON.stringify({ [user]: { password_hash: hash(password), groups } }, null, 2));
} else {
  console.log(hash(password));
}
