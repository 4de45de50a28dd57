import { randomBytes } from "node:crypto";
import { ensureLocalAdminRows, LOCAL_ADMIN_EMAIL, type Database, type Role } from "@evotrainer/db";
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

export { LOCAL_ADMIN_EMAIL };

export interface LocalAdminLogin {
  email: string;
  userId: string;
  /** Only when this call created the admin: the password is not stored anywhere readable. */
  password: string | null;
  organizationId: string;
}

/**
 * The installation's first login: an admin of the "local" organization, created by the quickstart or
 * by the first local CLI command that needs someone to act as. Idempotent and safe when two
 * processes race; a second call returns the email without a password, since only its hash was kept.
 */
export async function ensureLocalAdmin(db: Database, options: { email?: string; password?: string } = {}): Promise<LocalAdminLogin> {
  const email = (options.email ?? LOCAL_ADMIN_EMAIL).toLowerCase();
  const password = options.password ?? randomBytes(12).toString("base64url");
  const rows = await ensureLocalAdminRows(db, { email, passwordHash: () => hashPassword(password) });
  return { email, userId: rows.userId, password: rows.created ? password : null, organizationId: rows.organizationId };
}
