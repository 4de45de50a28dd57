import { TRPCError, type TRPCRouterRecord } from "@trpc/server";
import { z } from "zod";
import { groupAdvantages } from "@evotrainer/core";
import { Prisma } from "@evotrainer/db";
import type { Principal } from "../auth/principal.ts";
import { accessBranch, accessRun, protectedProcedure } from "../trpc.ts";
import { int64Id } from "./ids.ts";

// A share link reads no sealed rollout here: these views show texts' lengths and labels of each one.
const visibleSplits = (principal: Principal) => (principal.kind === "share" ? { not: "sealed" as const } : undefined);

/** The views RL practitioners ask for: a GRPO group side by side, a task over steps and branches, reward components over steps. */
export const rolloutViewsRouter = {
  /**
   * The rollouts of one GRPO group (same branch, split, step and group) side by side. Advantages are
   * the trainer's where it recorded them, otherwise recomputed as GRPO does (centred, std-scaled).
   */
  group: protectedProcedure.input(z.object({ rolloutId: int64Id })).query(async ({ ctx, input }) => {
    const one = await ctx.db.rollout.findUnique({ where: { id: BigInt(input.rolloutId) }, select: { runId: true, branchId: true, split: true, step: true, groupId: true, taskId: true } });
    if (!one) throw new TRPCError({ code: "NOT_FOUND", message: "rollout not found" });
    await accessRun(ctx, one.runId, "rollout");
    if (one.split === "sealed" && ctx.principal.kind === "share") throw new TRPCError({ code: "FORBIDDEN", message: "a share link does not see groups of the sealed split" });
    const rows = await ctx.db.rollout.findMany({
      where: { branchId: one.branchId, split: one.split, step: one.step, groupId: one.groupId },
      orderBy: { sample: "asc" },
      take: 256,
      select: { id: true, sample: true, reward: true, advantage: true, responseTokens: true, truncated: true, finishReason: true, labels: { select: { label: true } }, branch: { select: { version: true } } },
    });
    // A sample without a known result has no advantage: the group is its samples with a reward.
    const scored = rows.flatMap((r) => (r.reward === null ? [] : [r.reward]));
    const computed = groupAdvantages(scored, true);
    const computedOf = new Map(rows.filter((r) => r.reward !== null).map((r, i) => [r.id, computed[i]!]));
    const recorded = rows.every((r) => r.advantage !== null);
    // Every reward equal: the group's advantages are all zero and it teaches the policy nothing.
    const dead = scored.length > 1 && scored.every((reward) => reward === scored[0]);
    return {
      ...one,
      version: rows[0]?.branch.version ?? null,
      dead,
      advantageSource: recorded ? ("recorded by the trainer" as const) : ("recomputed as GRPO does" as const),
      members: rows.map((r) => ({ id: r.id, sample: r.sample, reward: r.reward, advantage: recorded ? r.advantage! : (computedOf.get(r.id) ?? null), responseTokens: r.responseTokens, truncated: r.truncated, finishReason: r.finishReason, labels: [...new Set(r.labels.map((l) => l.label))] })),
    };
  }),

  /** The branch's dead groups (every reward equal), newest steps first, for the dead-group chart to open. */
  deadGroups: protectedProcedure.input(z.object({ branchId: z.string().min(1), limit: z.number().int().min(1).max(200).default(50) })).query(async ({ ctx, input }) => {
    await accessBranch(ctx, input.branchId);
    const sealed = ctx.principal.kind === "share" ? Prisma.sql`AND split <> 'sealed'` : Prisma.empty;
    const rows = await ctx.db.$queryRaw<{ step: number; groupId: string; taskId: string; reward: number; size: number; firstId: bigint }[]>`
      SELECT step, "groupId", MIN("taskId") AS "taskId", MIN(reward) AS reward, COUNT(*)::int AS size, MIN(id) AS "firstId"
      FROM "Rollout" WHERE "branchId" = ${input.branchId} ${sealed}
      GROUP BY split, step, "groupId" HAVING COUNT(reward) > 1 AND MIN(reward) = MAX(reward)
      ORDER BY step DESC, "groupId" LIMIT ${input.limit}`;
    return rows.map((r) => ({ ...r, firstId: String(r.firstId) }));
  }),

  /** One task over the steps of each branch asked for: mean reward, how many samples, which labels. */
  taskHistory: protectedProcedure
    .input(z.object({ runId: z.string().min(1), taskId: z.string().min(1).max(500), branchIds: z.array(z.string().min(1)).min(1).max(8) }))
    .query(async ({ ctx, input }) => {
      await accessRun(ctx, input.runId);
      const rows = await ctx.db.rollout.findMany({
        where: { runId: input.runId, branchId: { in: input.branchIds }, taskId: input.taskId, split: visibleSplits(ctx.principal) },
        orderBy: [{ step: "asc" }, { sample: "asc" }],
        take: 2_000,
        select: { id: true, branchId: true, step: true, split: true, reward: true, labels: { select: { label: true } } },
      });
      const branches = await ctx.db.branch.findMany({ where: { id: { in: input.branchIds }, runId: input.runId }, select: { id: true, version: true }, orderBy: { version: "asc" } });
      const cells = new Map<string, { branchId: string; step: number; split: string; rewards: number[]; labels: Set<string>; firstId: bigint }>();
      for (const r of rows) {
        const key = `${r.branchId} ${r.split} ${r.step}`;
        const cell = cells.get(key) ?? { branchId: r.branchId, step: r.step, split: r.split, rewards: [], labels: new Set<string>(), firstId: r.id };
        if (r.reward !== null) cell.rewards.push(r.reward);
        for (const l of r.labels) cell.labels.add(l.label);
        cells.set(key, cell);
      }
      return {
        taskId: input.taskId,
        branches,
        points: [...cells.values()].map((c) => ({
          branchId: c.branchId,
          step: c.step,
          split: c.split,
          samples: c.rewards.length,
          meanReward: c.rewards.length === 0 ? null : c.rewards.reduce((a, b) => a + b, 0) / c.rewards.length,
          labels: [...c.labels].sort(),
          firstId: String(c.firstId),
        })),
      };
    }),

  /** Each reward component's mean per step of the branch's training rollouts, and its share of the summed components. */
  rewardComponents: protectedProcedure.input(z.object({ branchId: z.string().min(1) })).query(async ({ ctx, input }) => {
    await accessBranch(ctx, input.branchId);
    const rows = await ctx.db.$queryRaw<{ step: number; component: string; mean: number }[]>`
      SELECT r.step, c.key AS component, AVG(c.value::text::float8) AS mean
      FROM "Rollout" r, jsonb_each(r."rewardComponents") c
      WHERE r."branchId" = ${input.branchId} AND r.split = 'train' AND jsonb_typeof(c.value) = 'number'
      GROUP BY r.step, c.key ORDER BY r.step, c.key`;
    const components = [...new Set(rows.map((r) => r.component))].sort();
    const steps = [...new Set(rows.map((r) => r.step))].sort((a, b) => a - b);
    return {
      components,
      steps: steps.map((step) => {
        const at = rows.filter((r) => r.step === step);
        const total = at.reduce((sum, r) => sum + Math.abs(r.mean), 0);
        return { step, byComponent: Object.fromEntries(at.map((r) => [r.component, { mean: r.mean, share: total === 0 ? 0 : Math.abs(r.mean) / total }])) };
      }),
    };
  }),
} satisfies TRPCRouterRecord;
