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
  listMembers,
  removeMember,
  type MemberRefusal,
} from "@evotrainer/db";
import { hashPassword } from "../auth/password.ts";
import { newSecretToken, sha256Hex } from "../auth/secret-token.ts";
import { linkProcedure, organizationAdminProcedure, requireOrganizationRole, userProcedure } from "../trpc.ts";

export const INVITATION_TOKEN_PREFIX = "evi";
export const PASSWORD_RESET_TOKEN_PREFIX = "evr";

const role = z.enum(["viewer", "approver", "admin"]);
// Better Auth's own bounds for email + password sign-in.
const password = z.string().min(8, { error: "a password needs at least 8 characters" }).max(128);
const hours = z.number().positive().max(24 * 30);

function refused(refusal: MemberRefusal): never {
  const code = refusal.reason === "not_member" ? "NOT_FOUND" : refusal.reason === "already_member" ? "CONFLICT" : refusal.reason === "last_admin" ? "PRECONDITION_FAILED" : "UNAUTHORIZED";
  throw new TRPCError({ code, message: refusal.message });
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
    .mutation(async ({ ctx, input }) => {
      const token = newSecretToken(INVITATION_TOKEN_PREFIX);
      const expiresAt = new Date(Date.now() + input.expiresInHours * 3_600_000);
      const created = await createInvitation(ctx.db, { organizationId: ctx.organizationId, email: input.email, role: input.role, inviterId: ctx.userId, tokenHash: sha256Hex(token), expiresAt });
      if (created.outcome === "refused") refused(created);
      // The only time the link leaves the server.
      return { invitationId: created.invitationId, email: input.email.toLowerCase(), role: input.role, expiresAt, path: `/invite/${token}` };
    }),

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
    const created = await createPasswordReset(ctx.db, { organizationId: ctx.organizationId, userId: input.userId, tokenHash: sha256Hex(token), expiresAt });
    if (created.outcome === "refused") refused(created);
    return { email: created.email, expiresAt, path: `/reset-password/${token}` };
  }),

  /** What an invitation link offers, for the page it opens; 401 with the reason when it no longer works. */
  invitation: invitationLink.query(async ({ ctx }) => {
    const found = await findInvitation(ctx.db, ctx.tokenHash, new Date());
    if (found.outcome === "refused") refused(found);
    return { organizationName: found.organizationName, email: found.email, role: found.role, existingAccount: found.existingAccount };
  }),

  /** Signs up through an invitation: the only way an account is made outside the CLI. */
  acceptInvitation: invitationLink.input(z.object({ name: z.string().trim().min(1, { error: "give your name" }).max(100), password })).mutation(async ({ ctx, input }) => {
    const accepted = await acceptInvitation(ctx.db, { tokenHash: ctx.tokenHash, name: input.name, passwordHash: await hashPassword(input.password), now: new Date() });
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
    // A new password ends a lockout, as changing it does: the owner can sign in with it at once.
    await ctx.passwordSet(reset.email);
    return { email: reset.email };
  }),
} satisfies TRPCRouterRecord;
