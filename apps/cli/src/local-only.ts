import { remoteCredentials } from "./remote/credentials.ts";

/**
 * Commands that act on this machine's database and files (weights on disk) have no server procedure
 * behind them: while the CLI is logged in to a server, they say so in one sentence instead of
 * failing on a database this machine may not have.
 */
export function refuseWhileLoggedIn(command: string, instead: string): void {
  const remote = remoteCredentials();
  if (!remote) return;
  throw new Error(`\`evotrainer ${command}\` runs only beside the control plane's database, and this CLI is logged in to ${remote.server}: ${instead}, or run it on that machine after \`evotrainer logout\``);
}
