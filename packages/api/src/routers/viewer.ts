import type { TRPCRouterRecord } from "@trpc/server";
import { userProcedure } from "../trpc.ts";

/** The signed-in person and their organizations, for the top bar and role-aware pages. */
export const viewerRouter = {
  me: userProcedure.query(async ({ ctx }) => {
    const user = await ctx.db.user.findUniqueOrThrow({
      where: { id: ctx.userId },
      select: { id: true, name: true, email: true, memberships: { select: { role: true, organization: { select: { id: true, name: true } } } } },
    });
    return user;
  }),
} satisfies TRPCRouterRecord;
