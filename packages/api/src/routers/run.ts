import type { TRPCRouterRecord } from "@trpc/server";
import { z } from "zod";
import { RunStatus } from "@evotrainer/db";
import { publicProcedure } from "../trpc.ts";

export const runRouter = {
  list: publicProcedure
    .input(z.object({ status: z.enum(RunStatus).optional() }).default({}))
    .query(({ ctx, input }) =>
      ctx.db.run.findMany({
        where: input.status ? { status: input.status } : {},
        orderBy: { createdAt: "desc" },
        take: 200,
        select: {
          id: true,
          name: true,
          domain: true,
          status: true,
          round: true,
          gpuSecondsUsed: true,
          budget: true,
          createdAt: true,
          _count: { select: { branches: true } },
        },
      }),
    ),
} satisfies TRPCRouterRecord;
