import { TRPCError, type TRPCRouterRecord } from "@trpc/server";
import { z } from "zod";
import { SHARE_TOKEN_PREFIX } from "../auth/resolve-principal.ts";
import { newSecretToken, sha256Hex } from "../auth/secret-token.ts";
import { accessRun, protectedProcedure, requireRunRole, userProcedure } from "../trpc.ts";

export const shareLinkRouter = {
  /** The token is returned once, here; only its hash is stored. */
  create: userProcedure
    .input(z.object({ runId: z.string().min(1), expiresInHours: z.number().positive().max(24 * 365).optional() }))
    .mutation(async ({ ctx, input }) => {
      await requireRunRole(ctx, input.runId, "approver");
      const token = newSecretToken(SHARE_TOKEN_PREFIX);
      const link = await ctx.db.shareLink.create({
        data: {
          runId: input.runId,
          tokenHash: sha256Hex(token),
          createdById: ctx.userId,
          expiresAt: input.expiresInHours ? new Date(Date.now() + input.expiresInHours * 3_600_000) : null,
        },
        select: { id: true, expiresAt: true },
      });
      return { ...link, token, path: `/share/${token}` };
    }),

  list: userProcedure.input(z.object({ runId: z.string().min(1) })).query(async ({ ctx, input }) => {
    await accessRun(ctx, input.runId);
    return ctx.db.shareLink.findMany({
      where: { runId: input.runId },
      orderBy: { createdAt: "desc" },
      select: { id: true, scope: true, expiresAt: true, revokedAt: true, lastUsedAt: true, createdAt: true, createdBy: { select: { name: true } } },
    });
  }),

  revoke: userProcedure.input(z.object({ id: z.string().min(1) })).mutation(async ({ ctx, input }) => {
    const link = await ctx.db.shareLink.findUnique({ where: { id: input.id }, select: { runId: true, revokedAt: true } });
    if (!link) throw new TRPCError({ code: "NOT_FOUND", message: "share link not found" });
    await requireRunRole(ctx, link.runId, "approver", "share link");
    return ctx.db.shareLink.update({ where: { id: input.id }, data: { revokedAt: link.revokedAt ?? new Date() }, select: { id: true, revokedAt: true } });
  }),

  /** What a share token opens: its run. Share pages start here. */
  current: protectedProcedure.query(async ({ ctx }) => {
    if (ctx.principal.kind !== "share") throw new TRPCError({ code: "FORBIDDEN", message: "not a share link" });
    await ctx.db.shareLink.update({ where: { id: ctx.principal.shareLinkId }, data: { lastUsedAt: new Date() } });
    return { runId: ctx.principal.runId };
  }),
} satisfies TRPCRouterRecord;
