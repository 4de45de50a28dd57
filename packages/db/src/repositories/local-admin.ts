import type { Database } from "../client.ts";
import { INSTALLATION_ADMIN_ROLE } from "./organizations.ts";

export const LOCAL_ADMIN_EMAIL = "admin@evotrainer.local";
export const LOCAL_ORGANIZATION_SLUG = "local";

/** The organization that runs started from the CLI on this machine belong to; inserted if missing, race-safe. */
export async function ensureLocalOrganization(db: Database): Promise<string> {
  await db.organization.createMany({ data: [{ name: "Local", slug: LOCAL_ORGANIZATION_SLUG }], skipDuplicates: true });
  const organization = await db.organization.findUniqueOrThrow({ where: { slug: LOCAL_ORGANIZATION_SLUG }, select: { id: true } });
  return organization.id;
}

export interface LocalAdminRows {
  userId: string;
  organizationId: string;
  /** This call inserted the user (so the password it was given is the one that signs in). */
  created: boolean;
}

/**
 * The local organization and its admin, inserted if missing. Two processes may race here (two CLI
 * commands on a fresh install): every insert is ON CONFLICT DO NOTHING, and the user, its login and
 * its membership are one transaction, so the loser waits for the winner's row and adopts it.
 */
export async function ensureLocalAdminRows(db: Database, input: { email: string; passwordHash: () => Promise<string> }): Promise<LocalAdminRows> {
  const email = input.email.toLowerCase();
  const organizationId = await ensureLocalOrganization(db);
  const existing = await db.user.findUnique({ where: { email }, select: { id: true } });
  // The hash is slow by design: only paid when the user may have to be created.
  const password = existing ? null : await input.passwordHash();
  return db.$transaction(async (tx) => {
    let created = false;
    if (password !== null) {
      const inserted = await tx.user.createMany({ data: [{ email, name: "Local admin", emailVerified: true, role: INSTALLATION_ADMIN_ROLE }], skipDuplicates: true });
      created = inserted.count === 1;
    }
    const user = await tx.user.findUniqueOrThrow({ where: { email }, select: { id: true } });
    if (created) await tx.account.create({ data: { userId: user.id, accountId: user.id, providerId: "credential", password: password! } });
    await tx.membership.createMany({ data: [{ organizationId, userId: user.id, role: "admin" }], skipDuplicates: true });
    await tx.membership.update({ where: { organizationId_userId: { organizationId, userId: user.id } }, data: { role: "admin" } });
    return { userId: user.id, organizationId, created };
  });
}
