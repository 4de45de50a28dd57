import { TRPCError, type TRPCRouterRecord } from "@trpc/server";
import { z } from "zod";
import { FINAL_TRAIN_STEPS } from "@evotrainer/core";
import { branchLabelRates, Prisma } from "@evotrainer/db";
import { accessRun, protectedProcedure } from "../trpc.ts";

// What one side of a task comparison carries: enough to read, not a whole 100 KB trajectory.
const TEXT_LIMIT = 4_000;

const clip = (text: string | null) => (text === null ? null : text.length > TEXT_LIMIT ? `${text.slice(0, TEXT_LIMIT)}\n… (the rest on the rollout page)` : text);

/**
 * Two or more branches of one run side by side: recipes, label rates, and the same tasks' rollouts.
 * Tasks come from the promotion split, which every judged branch is scored on, so the same task
 * ids line up; a branch not yet evaluated falls back to its training rollouts.
 */
export const compareRouter = {
  branches: protectedProcedure
    .input(z.object({ runId: z.string().min(1), branchIds: z.array(z.string().min(1)).min(2).max(8), tasks: z.number().int().min(1).max(20).default(6) }))
    .query(async ({ ctx, input }) => {
      await accessRun(ctx, input.runId);
      const ids = [...new Set(input.branchIds)];
      const rows = await ctx.db.branch.findMany({
        where: { runId: input.runId, id: { in: ids } },
        orderBy: { version: "asc" },
        select: {
          id: true,
          version: true,
          kind: true,
          status: true,
          parentId: true,
          promotionScore: true,
          recipe: { select: { canonical: true } },
          intervention: { select: { factor: true, hypothesis: true } },
          verdict: { select: { passed: true, deltaVsParent: true, ciLow: true, ciHigh: true } },
        },
      });
      if (rows.length !== ids.length) throw new TRPCError({ code: "NOT_FOUND", message: "a branch to compare is not in this run" });

      // The rates are the loop's (branchLabelRates, the last training steps); every label the charts plot for a
      // branch (its LabelStat rows) is listed, at 0 where the window has none, so table and charts never disagree.
      const [rates, charted] = await Promise.all([
        branchLabelRates(ctx.db, ids),
        ctx.db.labelStat.findMany({ where: { branchId: { in: ids }, split: "train" }, distinct: ["branchId", "label"], select: { branchId: true, label: true } }),
      ]);
      for (const { branchId, label } of charted) {
        const branch = rates.get(branchId)!;
        branch[label] ??= 0;
      }
      const labelRates = [...rates].flatMap(([branchId, byLabel]) => Object.entries(byLabel).map(([label, rate]) => ({ branchId, label, rate })));

      let split: "promotion" | "train" = "promotion";
      let taskIds = await sharedTasks(ctx.db, ids, split, input.tasks);
      if (taskIds.length === 0) {
        split = "train";
        taskIds = await sharedTasks(ctx.db, ids, split, input.tasks);
      }
      const rollouts = taskIds.length ? await latestRollouts(ctx.db, ids, split, taskIds) : [];
      const labels = rollouts.length ? await ctx.db.rolloutLabel.findMany({ where: { rolloutId: { in: rollouts.map((r) => r.id) } }, select: { rolloutId: true, label: true } }) : [];
      return {
        branches: rows.map((b) => ({ ...b, recipe: b.recipe.canonical, factor: b.intervention?.factor ?? null, hypothesis: b.intervention?.hypothesis ?? null })),
        labelRates,
        labelWindow: FINAL_TRAIN_STEPS,
        split,
        tasks: taskIds.map((taskId) => ({
          taskId,
          byBranch: Object.fromEntries(
            rollouts
              .filter((r) => r.taskId === taskId)
              .map((r) => [r.branchId, { ...r, id: String(r.id), response: clip(r.response), labels: labels.filter((l) => l.rolloutId === r.id).map((l) => l.label) }]),
          ),
        })),
      };
    }),
} satisfies TRPCRouterRecord;

interface TaskRollout {
  id: bigint;
  branchId: string;
  taskId: string;
  step: number;
  sample: number;
  reward: number;
  truncated: boolean;
  turns: number;
  response: string | null;
}

type Raw = { $queryRaw: <T>(q: Prisma.Sql) => Promise<T> };

/** Each branch's newest rollout of each task (first sample), its text cut in SQL so a long trajectory never travels. */
function latestRollouts(db: Raw, branchIds: string[], split: "promotion" | "train", taskIds: string[]): Promise<TaskRollout[]> {
  return db.$queryRaw<TaskRollout[]>(Prisma.sql`
    SELECT DISTINCT ON ("branchId", "taskId") "id", "branchId", "taskId", "step", "sample", "reward", "truncated", "turns", left("response", ${TEXT_LIMIT + 1}) AS "response"
    FROM "Rollout"
    WHERE "branchId" IN (${Prisma.join(branchIds)}) AND "split" = ${split}::"Split" AND "taskId" IN (${Prisma.join(taskIds)})
    ORDER BY "branchId", "taskId", "step" DESC, "sample" ASC`);
}

/** Task ids every one of the branches has a rollout of on the split, in a stable order. */
async function sharedTasks(db: Raw, branchIds: string[], split: "promotion" | "train", limit: number): Promise<string[]> {
  const rows = await db.$queryRaw<{ taskId: string }[]>(Prisma.sql`
    SELECT "taskId" FROM "Rollout"
    WHERE "branchId" IN (${Prisma.join(branchIds)}) AND "split" = ${split}::"Split"
    GROUP BY "taskId" HAVING COUNT(DISTINCT "branchId") = ${branchIds.length}
    ORDER BY "taskId" LIMIT ${limit}`);
  return rows.map((r) => r.taskId);
}
