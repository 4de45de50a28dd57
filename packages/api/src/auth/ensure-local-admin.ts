import { randomBytes } from "node:crypto";
import type { Database, Role } from "@evotrainer/db";
import { hashPassword } from "./password.ts";

export interface LocalUserInput {
  email: string;
  name: string;
  password: string;
  organizationId: string;
  role: Role;
}

/** A user with an email + password login (Better Auth's "credential" account) and a membership. */
export async function createLocalUser(db: Database, input: LocalUserInput) {
  const password = await hashPassword(input.password);
  return db.$transaction(async (tx) => {
    const user = await tx.user.create({ data: { email: input.email.toLowerCase(), name: input.name, emailVerified: true } });
    await tx.account.create({ data: { userId: user.id, accountId: user.id, providerId: "credential", password } });
    await tx.membership.create({ data: { organizationId: input.organizationId, userId: user.id, role: input.role } });
    return user;
  });
}

export const LOCAL_ADMIN_EMAIL = "admin@evotrainer.local";
export const LOCAL_ORGANIZATION_SLUG = "local";

export interface LocalAdminLogin {
  email: string;
  /** Only when this call created the admin: the password is not stored anywhere readable. */
  password: string | null;
  organizationId: string;
}

/**
 * The quickstart's first login: an admin of the "local" organization. Idempotent; a second call
 * returns the email without a password, since only its hash was kept.
 */
export async function ensureLocalAdmin(db: Database, options: { email?: string; password?: string } = {}): Promise<LocalAdminLogin> {
  const email = (options.email ?? LOCAL_ADMIN_EMAIL).toLowerCase();
  const organization = await db.organization.upsert({
    where: { slug: LOCAL_ORGANIZATION_SLUG },
    update: {},
    create: { name: "Local", slug: LOCAL_ORGANIZATION_SLUG },
  });
  const existing = await db.user.findUnique({ where: { email }, select: { id: true } });
  if (existing) {
    await db.membership.upsert({
      where: { organizationId_userId: { organizationId: organization.id, userId: existing.id } },
      update: { role: "admin" },
      create: { organizationId: organization.id, userId: existing.id, role: "admin" },
    });
    return { email, password: null, organizationId: organization.id };
  }
  const password = options.password ?? randomBytes(12).toString("base64url");
  const user = await createLocalUser(db, { email, name: "Local admin", password, organizationId: organization.id, role: "admin" });
  await db.user.update({ where: { id: user.id }, data: { role: "admin" } });
  return { email, password, organizationId: organization.id };
}
