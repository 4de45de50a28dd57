import { TRPCError, type TRPCRouterRecord } from "@trpc/server";
import { z } from "zod";
import {
  acceptInvitation,
  cancelInvitation,
  changeMemberRole,
  completePasswordReset,
  createInvitation,
  createPasswordReset,
  findInvitation,
  findPasswordReset,
  invitedAccount,
  listMembers,
  removeMember,
  type Database,
  type MemberRefusal,
  type Role,
} from "@evotrainer/db";
import { hashPassword, verifyPassword } from "../auth/password.ts";
import { newSecretToken, sha256Hex } from "../auth/secret-token.ts";
import { linkProcedure, organizationAdminProcedure, requireOrganizationRole, userProcedure, type Context } from "../trpc.ts";
import { printable } from "../input/printable-text.ts";

export const INVITATION_TOKEN_PREFIX = "evi";
export const PASSWORD_RESET_TOKEN_PREFIX = "evr";

const role = z.enum(["viewer", "approver", "admin"]);
// Better Auth's own bounds for email + password sign-in.
const password = z.string().min(8, { error: "a password needs at least 8 characters" }).max(128);
const hours = z.number().positive().max(24 * 30);

function refused(refusal: MemberRefusal): never {
  const codes: Partial<Record<MemberRefusal["reason"], TRPCError["code"]>> = {
    not_member: "NOT_FOUND",
    already_member: "CONFLICT",
    last_admin: "PRECONDITION_FAILED",
    needs_name: "BAD_REQUEST",
    not_yours: "FORBIDDEN",
  };
  const code = codes[refusal.reason] ?? "UNAUTHORIZED";
  throw new TRPCError({ code, message: refusal.message });
}

/**
 * The account's id when the caller is it: signed in as it, or holding its current password (refused
 * while the account is locked out, and a wrong one counts as a failed sign-in). Null otherwise.
 */
async function provenAccount(ctx: Context, account: { userId: string; passwordHash: string | null }, given: string | undefined): Promise<string | null> {
  const principal = await ctx.principal();
  if (principal?.kind === "user" && principal.userId === account.userId) return account.userId;
  if (!given || !account.passwordHash) return null;
  const { email } = await ctx.db.user.findUniqueOrThrow({ where: { id: account.userId }, select: { email: true } });
  const seconds = await ctx.passwordGuard.waitSeconds(email, ctx.clientAddress, "invitation");
  if (seconds > 0) throw new TRPCError({ code: "TOO_MANY_REQUESTS", message: `Too many wrong passwords for this account from your address: try again in ${Math.ceil(seconds / 60)} min.` });
  if (await verifyPassword({ hash: account.passwordHash, password: given })) {
    await ctx.passwordGuard.recordSuccess(email, ctx.clientAddress);
    return account.userId;
  }
  await ctx.passwordGuard.recordFailure(email, ctx.clientAddress, "invitation");
  return null;
}

/** A new invitation link; the only time the link leaves the server. */
export async function inviteByLink(db: Database, input: { organizationId: string; inviterId: string; email: string; role: Role; expiresInHours: number }) {
  const token = newSecretToken(INVITATION_TOKEN_PREFIX);
  const expiresAt = new Date(Date.now() + input.expiresInHours * 3_600_000);
  const created = await createInvitation(db, { organizationId: input.organizationId, email: input.email, role: input.role, inviterId: input.inviterId, tokenHash: sha256Hex(token), expiresAt });
  if (created.outcome === "refused") refused(created);
  return { invitationId: created.invitationId, email: input.email.toLowerCase(), role: input.role, expiresAt, path: `/invite/${token}` };
}

const invitationLink = linkProcedure((db, tokenHash) => findInvitation(db, tokenHash, new Date()));
const passwordResetLink = linkProcedure((db, tokenHash) => findPasswordReset(db, tokenHash, new Date()));

/**
 * An organization's members: admins invite by link, change roles, remove members and hand out
 * password-reset links; everyone in it may read the list. Links are shown once; only their hash is kept.
 */
export const memberRouter = {
  list: userProcedure.input(z.object({ organizationId: z.string().min(1) })).query(async ({ ctx, input }) => {
    const callerRole = await requireOrganizationRole(ctx, input.organizationId, "viewer");
    const { members, invitations } = await listMembers(ctx.db, input.organizationId, new Date());
    // Who was invited is the admins' business; the others see who is in.
    return { callerRole, members, invitations: callerRole === "admin" ? invitations : [] };
  }),

  invite: organizationAdminProcedure
    .input(z.object({ email: z.email({ error: "give the invitee's email address" }).max(320), role, expiresInHours: hours.default(72) }))
    .mutation(({ ctx, input }) => inviteByLink(ctx.db, { ...input, organizationId: ctx.organizationId, inviterId: ctx.userId })),

  cancelInvitation: organizationAdminProcedure.input(z.object({ invitationId: z.string().min(1) })).mutation(async ({ ctx, input }) => {
    if (!(await cancelInvitation(ctx.db, ctx.organizationId, input.invitationId))) throw new TRPCError({ code: "NOT_FOUND", message: "no pending invitation with that id" });
    return { invitationId: input.invitationId };
  }),

  changeRole: organizationAdminProcedure.input(z.object({ userId: z.string().min(1), role })).mutation(async ({ ctx, input }) => {
    const changed = await changeMemberRole(ctx.db, { organizationId: ctx.organizationId, userId: input.userId, role: input.role });
    if (changed.outcome === "refused") refused(changed);
    return { userId: input.userId, from: changed.from, to: changed.to };
  }),

  remove: organizationAdminProcedure.input(z.object({ userId: z.string().min(1) })).mutation(async ({ ctx, input }) => {
    const removed = await removeMember(ctx.db, { organizationId: ctx.organizationId, userId: input.userId });
    if (removed.outcome === "refused") refused(removed);
    return { userId: input.userId, email: removed.email };
  }),

  createPasswordReset: organizationAdminProcedure.input(z.object({ userId: z.string().min(1), expiresInHours: hours.default(24) })).mutation(async ({ ctx, input }) => {
    const token = newSecretToken(PASSWORD_RESET_TOKEN_PREFIX);
    const expiresAt = new Date(Date.now() + input.expiresInHours * 3_600_000);
    const created = await createPasswordReset(ctx.db, { organizationId: ctx.organizationId, userId: input.userId, adminId: ctx.userId, tokenHash: sha256Hex(token), expiresAt });
    if (created.outcome === "refused") refused(created);
    return { email: created.email, expiresAt, path: `/reset-password/${token}` };
  }),

  /**
   * What an invitation link offers, for the page it opens; 401 with the reason when it no longer works.
   * Whether the email has an account is not said (the admin who made the link may open it too); only
   * whether the caller is signed in as the invited email, so the page can offer to join at once.
   */
  invitation: invitationLink.query(async ({ ctx }) => {
    const found = await findInvitation(ctx.db, ctx.tokenHash, new Date());
    if (found.outcome === "refused") refused(found);
    const account = await invitedAccount(ctx.db, ctx.tokenHash);
    const principal = await ctx.principal();
    const signedInAsInvitee = account !== null && principal?.kind === "user" && principal.userId === account.userId;
    return { organizationName: found.organizationName, email: found.email, role: found.role, signedInAsInvitee };
  }),

  /**
   * Joins through an invitation. A new email gets an account with the name and password given (the
   * only way an account is made outside the CLI). An email that already has an account joins only
   * when the caller proves to be it: signed in as it, or with its current password. Wrong passwords
   * hold this client back here as at sign-in, but never count at sign-in: any organization admin can
   * invite any email, so this door is open to strangers.
   */
  acceptInvitation: invitationLink
    .input(z.object({ name: printable(z.string().trim().max(100)).optional(), password: z.string().max(128).optional() }))
    .mutation(async ({ ctx, input }) => {
      const account = await invitedAccount(ctx.db, ctx.tokenHash);
      let provenUserId: string | null = null;
      let passwordHash: string | null = null;
      if (account) {
        provenUserId = await provenAccount(ctx, account, input.password);
      } else {
        if (!input.name) throw new TRPCError({ code: "BAD_REQUEST", message: "name: give your name to create your account." });
        const chosen = password.safeParse(input.password ?? "");
        if (!chosen.success) throw new TRPCError({ code: "BAD_REQUEST", message: "password: choose a password of at least 8 characters." });
        passwordHash = await hashPassword(chosen.data);
      }
      const accepted = await acceptInvitation(ctx.db, { tokenHash: ctx.tokenHash, name: input.name ?? null, passwordHash, provenUserId, now: new Date() });
      if (accepted.outcome === "refused") refused(accepted);
      return { email: accepted.email, role: accepted.role, existingAccount: accepted.existingAccount };
    }),

  passwordReset: passwordResetLink.query(async ({ ctx }) => {
    const found = await findPasswordReset(ctx.db, ctx.tokenHash, new Date());
    if (found.outcome === "refused") refused(found);
    return { email: found.email };
  }),

  completePasswordReset: passwordResetLink.input(z.object({ password })).mutation(async ({ ctx, input }) => {
    const reset = await completePasswordReset(ctx.db, { tokenHash: ctx.tokenHash, passwordHash: await hashPassword(input.password), now: new Date() });
    if (reset.outcome === "refused") refused(reset);
    // A new password forgets every wrong one, as changing it does.
    await ctx.passwordGuard.passwordSet(reset.email);
    return { email: reset.email };
  }),
} satisfies TRPCRouterRecord;
