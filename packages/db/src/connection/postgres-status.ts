import { serviceAddress, ServiceStatus, type OutagePlan } from "@evotrainer/core";

/** What a process that does not say otherwise does while PostgreSQL is away: it waits and tries again. */
const RETRYING: OutagePlan = { meanwhile: "retrying", resumed: "carrying on" };

const shared = new Map<string, ServiceStatus>();

/**
 * The process's one status of the PostgreSQL at `databaseUrl`, said on stderr: every pool and client a
 * process opens to one server shares it, so an outage is said once however many connections see it.
 */
export function postgresStatus(databaseUrl: string): ServiceStatus {
  const where = serviceAddress(databaseUrl);
  let status = shared.get(where);
  if (!status) {
    status = new ServiceStatus("PostgreSQL", where, RETRYING, (line) => console.error(line));
    shared.set(where, status);
  }
  return status;
}
