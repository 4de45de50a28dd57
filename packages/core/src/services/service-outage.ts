/** The services the control plane depends on: Postgres holds the truth, Redis carries the work. */
export type ServiceName = "PostgreSQL" | "Redis";

/** Whether a service answered last time it was asked, and why not when it did not. */
export type ServiceState = { reachable: true } | { reachable: false; reason: string };

export type ServiceObservation = { ok: true } | { ok: false; reason: string };

/** What a process does while a service is away (said once per outage) and once it is back. */
export interface OutagePlan {
  meanwhile: string;
  resumed: string;
}

/**
 * The next state of a service after an observation, and the one line to log, if any: the first failure
 * of an outage is said, with what the process does meanwhile; further failures are not; the first
 * success after an outage says it is back. A process watching many connections to one service says
 * each outage once.
 */
export function observeService(
  service: ServiceName,
  where: string,
  state: ServiceState,
  observation: ServiceObservation,
  plan: OutagePlan,
): { state: ServiceState; line: string | null } {
  if (observation.ok) return { state: { reachable: true }, line: state.reachable ? null : `${service} at ${where} answers again; ${plan.resumed}` };
  const next: ServiceState = { reachable: false, reason: observation.reason };
  return { state: next, line: state.reachable ? `${service} at ${where} is unreachable; ${plan.meanwhile} (${observation.reason})` : null };
}

// Node's socket errors that mean the other end is gone or not there yet.
const SOCKET_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "ENOTFOUND", "EHOSTUNREACH", "ENETUNREACH", "EAI_AGAIN", "ECONNABORTED"]);
// PostgreSQL's SQLSTATEs for a server shutting down or starting (class 08 is any connection exception).
const POSTGRES_CODES = new Set(["57P01", "57P02", "57P03", "53300"]);
// Prisma's codes for a server it cannot reach, that closed the connection, or a pool it timed out on.
const PRISMA_CODES = new Set(["P1001", "P1002", "P1008", "P1017", "P2024"]);
// What pg, Prisma's adapter and ioredis say when a connection drops, in their own words.
const MESSAGES = [
  /Connection terminated/i,
  /terminating connection due to administrator command/i,
  /the database system is (starting up|shutting down|in recovery mode)/i,
  /timeout exceeded when trying to connect/i,
  /Client has encountered a connection error and is not queryable/i,
  /Can't reach database server/i,
  /Server has closed the connection/i,
  /Connection is closed/i,
  /Stream isn't writeable/i,
  /Reached the max retries per request limit/i,
  /Command timed out/i,
];

/**
 * Whether an error means a service is away (refused, reset, shutting down, starting up), not that a
 * query or command was wrong: such a failure is retried once the service answers, never recorded as
 * the work's failure. Looks through `cause` chains and aggregated errors, where drivers wrap the socket's.
 */
export function isServiceUnavailable(error: unknown, depth = 0): boolean {
  if (depth > 8 || error === null || typeof error !== "object") return false;
  const e = error as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown; kind?: unknown; originalCode?: unknown };
  for (const code of [e.code, e.originalCode]) {
    if (typeof code !== "string") continue;
    if (SOCKET_CODES.has(code) || POSTGRES_CODES.has(code) || PRISMA_CODES.has(code) || code.startsWith("08")) return true;
  }
  if (e.kind === "DatabaseNotReachable" || e.kind === "ConnectionClosed" || e.kind === "SocketTimeout") return true;
  if (typeof e.message === "string" && MESSAGES.some((pattern) => pattern.test(e.message as string))) return true;
  if (Array.isArray(e.errors) && e.errors.some((inner) => isServiceUnavailable(inner, depth + 1))) return true;
  return isServiceUnavailable(e.cause, depth + 1);
}

/** A connection URL as logs may show it: host, port and database, never a user or password. */
export function serviceAddress(url: string): string {
  try {
    const parsed = new URL(url);
    const path = parsed.pathname.length > 1 ? parsed.pathname : "";
    return `${parsed.hostname}${parsed.port ? `:${parsed.port}` : ""}${path}`;
  } catch {
    return "(unparsable URL)";
  }
}

const DEFAULT_PORTS: Record<string, string> = { "postgresql:": "5432", "postgres:": "5432", "redis:": "6379", "rediss:": "6379" };

/**
 * The server a connection URL names, as `host:port` with the scheme's default port filled in: what an
 * operator checks is listening, in one-line messages that name the server rather than the database.
 */
export function serverAddress(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname || "localhost"}:${parsed.port || DEFAULT_PORTS[parsed.protocol] || "?"}`;
  } catch {
    return "(unparsable URL)";
  }
}
