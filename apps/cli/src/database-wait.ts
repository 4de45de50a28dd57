import { isServiceUnavailable, serverAddress, ServiceStatus } from "@evotrainer/core";
// The subpath, not the package's index: this runs before every local command, `status` included.
import { untilPostgresAnswers } from "@evotrainer/db/connection";
import { loadCliEnv } from "./env.ts";
import { remoteCredentials } from "./remote/credentials.ts";

/**
 * Before a command that uses this machine's database: while PostgreSQL does not answer, says so in one
 * line and waits, with backoff, until it does. Waiting before the command, not retrying it after a
 * failure, is what makes it safe: nothing of the command has happened yet, so nothing is done twice.
 * Logged in to a server, the command talks to that server instead, and nothing is awaited here.
 */
export async function untilLocalDatabaseAnswers(): Promise<void> {
  if (remoteCredentials()) return;
  const { DATABASE_URL } = loadCliEnv();
  await untilPostgresAnswers(DATABASE_URL, cliPostgresStatus(DATABASE_URL));
}

/** How a command says, on stderr, that this machine's PostgreSQL is away and back. */
export function cliPostgresStatus(databaseUrl: string, meanwhile = "retrying (Ctrl-C to stop)"): ServiceStatus {
  return new ServiceStatus("PostgreSQL", serverAddress(databaseUrl), { meanwhile, resumed: "carrying on" }, (line) => console.error(line));
}

/**
 * A failure in one line. A service lost in the middle of a command is said in the driver's last line
 * (Prisma's invocation preamble before it is noise to a person at a terminal).
 */
export function failureLine(error: unknown): string {
  const message = error instanceof Error ? error.message || error.name : String(error);
  if (!isServiceUnavailable(error)) return message;
  return message.split("\n").map((line) => line.trim()).filter(Boolean).at(-1) ?? message;
}
