import type { Database } from "@evotrainer/db";

/** Runs started from the CLI on this machine belong to the local organization. */
export async function localOrganization(db: Database): Promise<string> {
  const org = await db.organization.upsert({ where: { slug: "local" }, update: {}, create: { name: "Local", slug: "local" } });
  return org.id;
}
