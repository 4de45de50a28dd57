import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { masterKeyFrom } from "./secret-box.ts";

function repositoryRoot(from: string): string {
  for (let dir = from; dir !== dirname(dir); dir = dirname(dir)) {
    if (existsSync(join(dir, "turbo.json"))) return dir;
  }
  return from;
}

/**
 * EVO_MASTER_KEY when set; otherwise a local installation's own key, generated once into
 * .evotrainer/master-key (readable by this user only) so the quickstart needs no configuration.
 * Web seals webhook secrets with it and the worker opens them, so both read the same file.
 */
export function masterKeyOrLocal(env: Record<string, string | undefined> = process.env, cwd = process.cwd()): Buffer {
  if (env.EVO_MASTER_KEY?.trim()) return masterKeyFrom(env);
  const file = join(repositoryRoot(cwd), ".evotrainer", "master-key");
  if (!existsSync(file)) {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    try {
      writeFileSync(file, randomBytes(32).toString("base64"), { mode: 0o600, flag: "wx" });
    } catch {
      // Another process wrote it first: use theirs.
    }
  }
  return masterKeyFrom({ EVO_MASTER_KEY: readFileSync(file, "utf8") });
}
