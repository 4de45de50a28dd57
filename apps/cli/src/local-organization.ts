import { ensureLocalOrganization, type Database } from "@evotrainer/db";

/** Runs started from the CLI on this machine belong to the local organization. */
export function localOrganization(db: Database): Promise<string> {
  return ensureLocalOrganization(db);
}
