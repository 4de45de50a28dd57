import { admitLink, admitMembershipChange, type MemberRole } from "@evotrainer/core";
import type { Database } from "../client.ts";
import type { Tx } from "./events.ts";
import { INSTALLATION_ADMIN_ROLE } from "./organizations.ts";

/** Verification rows that hold password-reset links: the identifier carries the token's hash, the value the user. */
const RESET_PREFIX = "password-reset:";

export interface MemberRow {
  userId: string;
  name: string;
  email: string;
  role: MemberRole;
  joinedAt: Date;
}

export interface PendingInvitation {
  id: string;
  email: string;
  role: MemberRole;
  expiresAt: Date;
  createdAt: Date;
}

export type MemberRefusal = {
  outcome: "refused";
  reason: "last_admin" | "not_member" | "already_member" | "invalid_link" | "used" | "expired" | "needs_proof" | "needs_name" | "not_yours";
  message: string;
};

/** The organization's members, admins first, and its invitations still waiting to be used. */
export async function listMembers(db: Database, organizationId: string, now: Date): Promise<{ members: MemberRow[]; invitations: PendingInvitation[] }> {
  const [memberships, invitations] = await Promise.all([
    db.membership.findMany({ where: { organizationId }, select: { role: true, createdAt: true, user: { select: { id: true, name: true, email: true } } } }),
    db.invitation.findMany({
      where: { organizationId, status: "pending", expiresAt: { gt: now }, tokenHash: { not: null } },
      orderBy: { createdAt: "desc" },
      select: { id: true, email: true, role: true, expiresAt: true, createdAt: true },
    }),
  ]);
  const rank: Record<MemberRole, number> = { admin: 0, approver: 1, viewer: 2 };
  const members = memberships
    .map((m) => ({ userId: m.user.id, name: m.user.name, email: m.user.email, role: m.role, joinedAt: m.createdAt }))
    .sort((a, b) => rank[a.role] - rank[b.role] || a.email.localeCompare(b.email));
  return { members, invitations: invitations.map((i) => ({ ...i, role: i.role ?? "viewer" })) };
}

/**
 * A new invitation link for an email, replacing any older pending one for it: only the newest
 * link an admin handed out works. Refused for someone who is already a member.
 */
export async function createInvitation(
  db: Database,
  input: { organizationId: string; email: string; role: MemberRole; inviterId: string; tokenHash: string; expiresAt: Date },
): Promise<{ outcome: "created"; invitationId: string } | MemberRefusal> {
  const email = input.email.toLowerCase();
  return db.$transaction(async (tx) => {
    const member = await tx.membership.findFirst({ where: { organizationId: input.organizationId, user: { email } }, select: { id: true } });
    if (member) return { outcome: "refused", reason: "already_member", message: `${email} is already a member: change their role instead` };
    await tx.invitation.updateMany({ where: { organizationId: input.organizationId, email, status: "pending" }, data: { status: "canceled" } });
    const invitation = await tx.invitation.create({
      data: { organizationId: input.organizationId, email, role: input.role, inviterId: input.inviterId, tokenHash: input.tokenHash, expiresAt: input.expiresAt },
    });
    return { outcome: "created", invitationId: invitation.id };
  });
}

export async function cancelInvitation(db: Database, organizationId: string, invitationId: string): Promise<boolean> {
  const moved = await db.invitation.updateMany({ where: { id: invitationId, organizationId, status: "pending" }, data: { status: "canceled" } });
  return moved.count > 0;
}

/**
 * What an invitation link offers (organization, email, role), or why it no longer works. It says
 * nothing of whether the email has an account: whoever holds the link (the inviting admin too) would learn it.
 */
export async function findInvitation(
  db: Database,
  tokenHash: string,
  now: Date,
): Promise<{ outcome: "valid"; organizationName: string; email: string; role: MemberRole } | MemberRefusal> {
  const invitation = await db.invitation.findUnique({ where: { tokenHash }, include: { organization: { select: { name: true } } } });
  if (!invitation || invitation.status === "canceled") return invalidLink("invitation");
  const admission = admitLink({ used: invitation.status !== "pending", expiresAt: invitation.expiresAt, now, what: "invitation" });
  if (admission.outcome === "refused") return admission;
  return { outcome: "valid", organizationName: invitation.organization.name, email: invitation.email, role: invitation.role ?? "viewer" };
}

/** The account an invitation's email already has, with its password hash, for the caller to check proof against. */
export async function invitedAccount(db: Database, tokenHash: string): Promise<{ userId: string; passwordHash: string | null } | null> {
  const invitation = await db.invitation.findUnique({ where: { tokenHash }, select: { email: true } });
  if (!invitation) return null;
  const user = await db.user.findUnique({ where: { email: invitation.email }, select: { id: true, accounts: { where: { providerId: "credential" }, select: { password: true } } } });
  return user ? { userId: user.id, passwordHash: user.accounts[0]?.password ?? null } : null;
}

/**
 * Uses an invitation link once: creates the person's account with the name and password they chose,
 * or, when the email already has an account, adds that account only if the caller proved to be it
 * (`provenUserId`: signed in as it, or its current password). The link alone never adds an existing
 * account: whoever made the link could otherwise take the account over. The invitation row is
 * locked, so two submissions of one link make one account.
 */
export async function acceptInvitation(
  db: Database,
  input: { tokenHash: string; name: string | null; passwordHash: string | null; provenUserId: string | null; now: Date },
): Promise<{ outcome: "accepted"; userId: string; email: string; role: MemberRole; organizationId: string; existingAccount: boolean } | MemberRefusal> {
  return db.$transaction(async (tx) => {
    const [row] = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM "Invitation" WHERE "tokenHash" = ${input.tokenHash} FOR UPDATE`;
    const invitation = row ? await tx.invitation.findUniqueOrThrow({ where: { id: row.id } }) : null;
    if (!invitation || invitation.status === "canceled") return invalidLink("invitation");
    const admission = admitLink({ used: invitation.status !== "pending", expiresAt: invitation.expiresAt, now: input.now, what: "invitation" });
    if (admission.outcome === "refused") return admission;
    const role = invitation.role ?? "viewer";
    const existing = await tx.user.findUnique({ where: { email: invitation.email }, select: { id: true } });
    if (existing && existing.id !== input.provenUserId) {
      return { outcome: "refused", reason: "needs_proof", message: `To join with the account of ${invitation.email}, sign in as it first or type its current password.` };
    }
    if (!existing && (!input.name || !input.passwordHash)) return { outcome: "refused", reason: "needs_name", message: "name: give your name to create your account." };
    const userId = existing?.id ?? (await createCredentialUser(tx, { email: invitation.email, name: input.name!, passwordHash: input.passwordHash! }));
    await tx.membership.upsert({
      where: { organizationId_userId: { organizationId: invitation.organizationId, userId } },
      update: {},
      create: { organizationId: invitation.organizationId, userId, role },
    });
    await tx.invitation.update({ where: { id: invitation.id }, data: { status: "accepted" } });
    return { outcome: "accepted", userId, email: invitation.email, role, organizationId: invitation.organizationId, existingAccount: existing !== null };
  });
}

async function createCredentialUser(tx: Tx, input: { email: string; name: string; passwordHash: string }): Promise<string> {
  const user = await tx.user.create({ data: { email: input.email, name: input.name, emailVerified: true } });
  // Better Auth's email + password provider reads the hash from the "credential" account.
  await tx.account.create({ data: { userId: user.id, accountId: user.id, providerId: "credential", password: input.passwordHash } });
  return user.id;
}

/** Locks the organization's memberships, so two admins demoting each other at once cannot leave none. */
async function lockedMemberships(tx: Tx, organizationId: string, userId: string): Promise<{ current: MemberRole | null; adminCount: number }> {
  const rows = await tx.$queryRaw<{ userId: string; role: MemberRole }[]>`
    SELECT "userId", role::text AS role FROM "Membership" WHERE "organizationId" = ${organizationId} ORDER BY id FOR UPDATE`;
  return { current: rows.find((r) => r.userId === userId)?.role ?? null, adminCount: rows.filter((r) => r.role === "admin").length };
}

/** The one writer of a member's role; the last admin keeps theirs. */
export async function changeMemberRole(db: Database, input: { organizationId: string; userId: string; role: MemberRole }): Promise<{ outcome: "changed"; from: MemberRole; to: MemberRole } | MemberRefusal> {
  return db.$transaction(async (tx) => {
    const { current, adminCount } = await lockedMemberships(tx, input.organizationId, input.userId);
    const admission = admitMembershipChange({ current, next: input.role, adminCount });
    if (admission.outcome === "refused") return admission;
    await tx.membership.update({ where: { organizationId_userId: { organizationId: input.organizationId, userId: input.userId } }, data: { role: input.role } });
    return { outcome: "changed", from: current!, to: input.role };
  });
}

/**
 * Removes a member from the organization; the last admin stays. The share links they made for the
 * organization's runs are revoked: a link outliving its maker's access would keep the run open to
 * whoever holds it. A person left in no organization also loses their sessions and API keys.
 */
export async function removeMember(db: Database, input: { organizationId: string; userId: string }): Promise<{ outcome: "removed"; email: string } | MemberRefusal> {
  return db.$transaction(async (tx) => {
    const { current, adminCount } = await lockedMemberships(tx, input.organizationId, input.userId);
    const admission = admitMembershipChange({ current, next: null, adminCount });
    if (admission.outcome === "refused") return admission;
    await tx.membership.delete({ where: { organizationId_userId: { organizationId: input.organizationId, userId: input.userId } } });
    await tx.shareLink.updateMany({ where: { createdById: input.userId, revokedAt: null, run: { organizationId: input.organizationId } }, data: { revokedAt: new Date() } });
    if ((await tx.membership.count({ where: { userId: input.userId } })) === 0) {
      await tx.session.deleteMany({ where: { userId: input.userId } });
      await tx.apiKey.updateMany({ where: { userId: input.userId }, data: { enabled: false } });
    }
    const user = await tx.user.findUniqueOrThrow({ where: { id: input.userId }, select: { email: true } });
    return { outcome: "removed", email: user.email };
  });
}

/**
 * A password-reset link for a member, replacing any earlier one for them. An account's credentials
 * are managed where the person belongs: the caller (`adminId`) must administer every organization the
 * account is in, and only an installation admin resets an installation admin's password.
 */
export async function createPasswordReset(
  db: Database,
  input: { organizationId: string; userId: string; adminId: string; tokenHash: string; expiresAt: Date },
): Promise<{ outcome: "created"; email: string } | MemberRefusal> {
  return db.$transaction(async (tx) => {
    const member = await tx.membership.findUnique({
      where: { organizationId_userId: { organizationId: input.organizationId, userId: input.userId } },
      select: { user: { select: { email: true, role: true } } },
    });
    if (!member) return { outcome: "refused", reason: "not_member", message: "this person is not a member of the organization" };
    if (!(await managesCredentials(tx, input.adminId, input.userId, member.user.role))) {
      return {
        outcome: "refused",
        reason: "not_yours",
        message: `${member.user.email} also belongs to an organization you do not administer, so only an installation admin can reset their password.`,
      };
    }
    await tx.verification.deleteMany({ where: { identifier: { startsWith: RESET_PREFIX }, value: input.userId } });
    await tx.verification.create({ data: { identifier: `${RESET_PREFIX}${input.tokenHash}`, value: input.userId, expiresAt: input.expiresAt } });
    return { outcome: "created", email: member.user.email };
  });
}

export async function findPasswordReset(db: Database, tokenHash: string, now: Date): Promise<{ outcome: "valid"; email: string } | MemberRefusal> {
  const row = await db.verification.findFirst({ where: { identifier: `${RESET_PREFIX}${tokenHash}` } });
  if (!row) return invalidLink("password reset");
  const admission = admitLink({ used: false, expiresAt: row.expiresAt, now, what: "password reset" });
  if (admission.outcome === "refused") return admission;
  const user = await db.user.findUnique({ where: { id: row.value }, select: { email: true } });
  return user ? { outcome: "valid", email: user.email } : invalidLink("password reset");
}

/** Whether `adminId` may manage `userId`'s credentials: an installation admin, or an admin of every organization the account is in. */
async function managesCredentials(tx: Tx, adminId: string, userId: string, targetRole: string | null): Promise<boolean> {
  const admin = await tx.user.findUnique({ where: { id: adminId }, select: { role: true } });
  if (admin?.role === INSTALLATION_ADMIN_ROLE) return true;
  if (targetRole === INSTALLATION_ADMIN_ROLE) return false;
  const outside = await tx.membership.count({
    where: { userId, organization: { memberships: { none: { userId: adminId, role: "admin" } } } },
  });
  return outside === 0;
}

/** Uses a reset link once: sets the new password and ends everything the account held: sessions and API keys. */
export async function completePasswordReset(
  db: Database,
  input: { tokenHash: string; passwordHash: string; now: Date },
): Promise<{ outcome: "reset"; userId: string; email: string } | MemberRefusal> {
  return db.$transaction(async (tx) => {
    const [row] = await tx.$queryRaw<{ id: string; value: string; expiresAt: Date }[]>`
      SELECT id, value, "expiresAt" FROM "Verification" WHERE identifier = ${`${RESET_PREFIX}${input.tokenHash}`} FOR UPDATE`;
    if (!row) return invalidLink("password reset");
    const admission = admitLink({ used: false, expiresAt: row.expiresAt, now: input.now, what: "password reset" });
    if (admission.outcome === "refused") return admission;
    await tx.verification.delete({ where: { id: row.id } });
    const user = await tx.user.findUnique({ where: { id: row.value }, select: { id: true, email: true } });
    if (!user) return invalidLink("password reset");
    const credential = await tx.account.findFirst({ where: { userId: user.id, providerId: "credential" }, select: { id: true } });
    if (credential) await tx.account.update({ where: { id: credential.id }, data: { password: input.passwordHash } });
    else await tx.account.create({ data: { userId: user.id, accountId: user.id, providerId: "credential", password: input.passwordHash } });
    await tx.session.deleteMany({ where: { userId: user.id } });
    await tx.apiKey.updateMany({ where: { userId: user.id, enabled: true }, data: { enabled: false } });
    return { outcome: "reset", userId: user.id, email: user.email };
  });
}

function invalidLink(what: string): MemberRefusal {
  return { outcome: "refused", reason: "invalid_link", message: `this ${what} link is not valid (it may have been replaced by a newer one): ask an admin for a new one` };
}
