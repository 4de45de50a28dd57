import "server-only";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

function repositoryRoot(from: string): string {
  for (let dir = from; dir !== dirname(dir); dir = dirname(dir)) {
    if (existsSync(join(dir, "turbo.json"))) return dir;
  }
  return from;
}

/**
 * A local installation needs no configuration, yet its sessions must survive restarts:
 * generate the secret once, readable by this user only.
 */
export function localAuthSecret(): string {
  const file = join(repositoryRoot(process.cwd()), ".evotrainer", "auth-secret");
  if (existsSync(file)) return readFileSync(file, "utf8").trim();
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const secret = randomBytes(32).toString("base64url");
  try {
    writeFileSync(file, secret, { mode: 0o600, flag: "wx" });
    return secret;
  } catch {
    // Another process wrote it first: use theirs.
    return readFileSync(file, "utf8").trim();
  }
}
