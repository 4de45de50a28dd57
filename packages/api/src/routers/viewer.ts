import type { TRPCRouterRecord } from "@trpc/server";
import { INSTALLATION_ADMIN_ROLE } from "@evotrainer/db";
import { userProcedure } from "../trpc.ts";

/** The signed-in person and their organizations, for the top bar and role-aware pages. */
export const viewerRouter = {
  me: userProcedure.query(async ({ ctx }) => {
    const user = await ctx.db.user.findUniqueOrThrow({
      where: { id: ctx.userId },
      select: { id: true, name: true, email: true, role: true, memberships: { select: { role: true, organization: { select: { id: true, name: true } } } } },
    });
    const { role, ...rest } = user;
    // The installation admin (Better Auth's admin role on the user row) also manages organizations.
    return { ...rest, installationAdmin: role === INSTALLATION_ADMIN_ROLE };
  }),
} satisfies TRPCRouterRecord;
