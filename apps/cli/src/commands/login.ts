import { forgetCredentials, saveCredentials } from "../remote/credentials.ts";
import { onServer } from "../remote/remote-api.ts";

/**
 * `evotrainer login <url> [--key <apiKey>]`: checks the key against the server, then stores both
 * so that status, report, decide and run talk to that server. The key comes from --key or
 * EVO_API_KEY (keeping it out of shell history), created in the dashboard under Settings → API keys.
 */
export async function loginCommand(args: string[]): Promise<number> {
  const url = args.find((a, i) => !a.startsWith("--") && args[i - 1] !== "--key");
  const keyAt = args.indexOf("--key");
  const apiKey = keyAt >= 0 ? args[keyAt + 1] : process.env.EVO_API_KEY;
  if (!url) throw new Error("usage: evotrainer login <dashboard url> [--key <apiKey>] (or EVO_API_KEY; create a key in the dashboard under Settings → API keys)");
  if (!apiKey) throw new Error(`no API key: pass --key or set EVO_API_KEY; create one at ${new URL("/settings/api-keys", url)}`);
  let server: string;
  try {
    server = new URL(url).origin;
  } catch {
    throw new Error(`"${url}" is not a URL: give the dashboard's address, e.g. https://evotrainer.example.com`);
  }
  const me = await onServer({ server, apiKey }, (api) => api.viewer.me.query());
  const file = saveCredentials({ server, apiKey });
  const orgs = me.memberships.map((m) => `${m.organization.name} (${m.role})`).join(", ") || "no organization yet";
  console.log(`evotrainer: logged in to ${server} as ${me.email}: ${orgs}. status, report, decide and run now talk to it; the key is in ${file}`);
  return 0;
}

/** `evotrainer logout`: forgets the stored server and key; the CLI works locally again. */
export function logoutCommand(): number {
  console.log(forgetCredentials() ? "evotrainer: logged out; commands work on this machine's database again" : "evotrainer: not logged in");
  return 0;
}
