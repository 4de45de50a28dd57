import { TRPCError, type TRPCRouterRecord } from "@trpc/server";
import { z } from "zod";
import { API_KEY_PREFIX } from "../auth/resolve-principal.ts";
import { newSecretToken, sha256Hex } from "../auth/secret-token.ts";
import { userProcedure } from "../trpc.ts";
import { printable } from "../input/printable-text.ts";

/** Keys for the CLI and for workers calling the API; each acts as the person who created it. */
export const apiKeyRouter = {
  create: userProcedure
    .input(z.object({ name: printable(z.string().trim().min(1).max(100)), expiresInDays: z.number().int().positive().max(3650).optional() }))
    .mutation(async ({ ctx, input }) => {
      const key = newSecretToken(API_KEY_PREFIX);
      const row = await ctx.db.apiKey.create({
        data: {
          name: input.name,
          start: key.slice(0, 8),
          prefix: API_KEY_PREFIX,
          keyHash: sha256Hex(key),
          userId: ctx.userId,
          expiresAt: input.expiresInDays ? new Date(Date.now() + input.expiresInDays * 86_400_000) : null,
        },
        select: { id: true, name: true, start: true, expiresAt: true },
      });
      // The only time the key leaves the server.
      return { ...row, key };
    }),

  list: userProcedure.query(({ ctx }) =>
    ctx.db.apiKey.findMany({
      where: { userId: ctx.userId },
      orderBy: { createdAt: "desc" },
      select: { id: true, name: true, start: true, enabled: true, expiresAt: true, lastUsedAt: true, createdAt: true },
    }),
  ),

  revoke: userProcedure.input(z.object({ id: z.string().min(1) })).mutation(async ({ ctx, input }) => {
    const moved = await ctx.db.apiKey.updateMany({ where: { id: input.id, userId: ctx.userId }, data: { enabled: false } });
    if (moved.count === 0) throw new TRPCError({ code: "NOT_FOUND", message: "API key not found" });
    return { id: input.id };
  }),
} satisfies TRPCRouterRecord;
