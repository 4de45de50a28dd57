import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { z } from "zod";

const credentialsSchema = z.object({ server: z.url(), apiKey: z.string().min(1) });
export type Credentials = z.infer<typeof credentialsSchema>;

/** `$XDG_CONFIG_HOME/evotrainer/credentials.json`, as `gh` and `wandb` keep theirs in the user's config. */
export function credentialsPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.XDG_CONFIG_HOME || join(homedir(), ".config"), "evotrainer", "credentials.json");
}

/**
 * The server the CLI talks to: `EVO_SERVER` with `EVO_API_KEY`, else what `evotrainer login` stored;
 * null means local mode (Postgres and Redis of this machine).
 */
export function remoteCredentials(env: NodeJS.ProcessEnv = process.env): Credentials | null {
  if (env.EVO_SERVER) {
    if (!env.EVO_API_KEY) throw new Error(`EVO_SERVER is ${env.EVO_SERVER} but EVO_API_KEY is unset: create a key in the dashboard (Settings → API keys)`);
    return { server: env.EVO_SERVER, apiKey: env.EVO_API_KEY };
  }
  const file = credentialsPath(env);
  if (!existsSync(file)) return null;
  const parsed = credentialsSchema.safeParse(JSON.parse(readFileSync(file, "utf8")));
  if (!parsed.success) throw new Error(`${file}: not a credentials file this CLI wrote; run \`evotrainer logout\`, then \`evotrainer login <url>\``);
  return parsed.data;
}

/** Written readable by its owner only: the key acts as them. */
export function saveCredentials(credentials: Credentials, env: NodeJS.ProcessEnv = process.env): string {
  const file = credentialsPath(env);
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  writeFileSync(file, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return file;
}

export function forgetCredentials(env: NodeJS.ProcessEnv = process.env): boolean {
  const file = credentialsPath(env);
  if (!existsSync(file)) return false;
  rmSync(file);
  return true;
}
