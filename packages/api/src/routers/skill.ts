import type { TRPCRouterRecord } from "@trpc/server";
import { userProcedure } from "../trpc.ts";

export const skillRouter = {
  list: userProcedure.query(({ ctx }) =>
    ctx.db.skill.findMany({
      where: { OR: [{ organizationId: null }, { organization: { memberships: { some: { userId: ctx.userId } } } }] },
      orderBy: [{ successCount: "desc" }, { name: "asc" }],
      take: 500,
      select: {
        id: true,
        name: true,
        trigger: true,
        template: true,
        expectedOutcome: true,
        domains: true,
        successCount: true,
        failureCount: true,
        updatedAt: true,
        applications: {
          orderBy: { createdAt: "desc" },
          take: 20,
          select: {
            id: true,
            outcome: true,
            intervention: { select: { runId: true, run: { select: { name: true } }, branch: { select: { id: true, version: true } } } },
          },
        },
      },
    }),
  ),
} satisfies TRPCRouterRecord;
