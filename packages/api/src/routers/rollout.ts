import { TRPCError, type TRPCRouterRecord } from "@trpc/server";
import { z } from "zod";
import { qualityText, reviewVerdict } from "@evotrainer/core";
import { detectorOf, labelDetectors, LabelReview, recordReview, reviewedPrecisionCounts, reviewHarness, searchRolloutIds, Split, UNINDEXED_COUNT_LIMIT, unindexedRollouts, type Database, type Prisma } from "@evotrainer/db";
import type { Principal } from "../auth/principal.ts";
import { sealedReleased } from "../auth/sealed-split.ts";
import { accessBranch, accessRun, protectedProcedure, requireRunRole, userProcedure } from "../trpc.ts";
import { int64Id as bigintId, stepNumber } from "./ids.ts";

export const rolloutListInput = z.object({
  branchId: z.string().min(1),
  split: z.enum(Split).optional(),
  step: stepNumber.optional(),
  label: z.string().min(1).max(100).optional(),
  rewardMin: z.number().optional(),
  rewardMax: z.number().optional(),
  q: z.string().min(1).max(200).optional(),
  // Keyset: the last id of the previous page. Offsets would rescan every page before it.
  cursor: bigintId.optional(),
  limit: z.number().int().min(1).max(200).default(100),
});

/** The filters but the text search, for Prisma. */
export function rolloutWhere(input: z.infer<typeof rolloutListInput>): Prisma.RolloutWhereInput {
  return {
    branchId: input.branchId,
    ...(input.split ? { split: input.split } : {}),
    ...(input.step !== undefined ? { step: input.step } : {}),
    ...(input.rewardMin !== undefined || input.rewardMax !== undefined ? { reward: { gte: input.rewardMin, lte: input.rewardMax } } : {}),
    // The label's row holds its rollout's step and split: said there too, a label at a step is one index range.
    ...(input.label
      ? { labels: { some: { branchId: input.branchId, label: input.label, ...(input.step !== undefined ? { step: input.step } : {}), ...(input.split ? { split: input.split } : {}) } } }
      : {}),
    ...(input.cursor ? { id: { gt: BigInt(input.cursor) } } : {}),
  };
}

const SEALED_HIDDEN = "a share link does not see the sealed split until the run's sealed evaluation is released";
const SEALED_SCORES_ONLY = "a share link sees only the scores of the sealed split";

/**
 * What the caller may read of the sealed split: people of the organization everything; a share
 * link nothing until the sealed evaluation is released, then its scores only.
 */
async function sealedAccess(ctx: { db: Database; principal: Principal }, runId: string): Promise<"full" | "scores" | "hidden"> {
  if (ctx.principal.kind !== "share") return "full";
  return (await sealedReleased(ctx.db, runId)) ? "scores" : "hidden";
}

/** A label chip's words: its detector's reviewed precision in the run, or "not reviewed". */
function chipText(precision: Map<string, { reviewed: number; confirmed: number }>, label: { label: string; detectorId: string }): string {
  const counts = precision.get(label.detectorId) ?? { reviewed: 0, confirmed: 0 };
  return qualityText(label.label, counts.reviewed, counts.confirmed);
}

type ChipLabel = { label: string; review: LabelReview | null; quality: string };

async function withQuality<T extends { labels: { label: string; review: LabelReview | null; detectorId: string }[] }>(
  db: Database,
  runId: string,
  rows: T[],
): Promise<(Omit<T, "labels"> & { labels: ChipLabel[] })[]> {
  const precision = await reviewedPrecisionCounts(db, runId);
  return rows.map((r) => ({ ...r, labels: r.labels.map(({ detectorId, ...l }) => ({ ...l, quality: chipText(precision, { label: l.label, detectorId }) })) }));
}

export const rolloutRouter = {
  list: protectedProcedure.input(rolloutListInput).query(async ({ ctx, input }) => {
    const { runId } = await accessBranch(ctx, input.branchId);
    const sealed = await sealedAccess(ctx, runId);
    if (sealed === "hidden" && input.split === "sealed") throw new TRPCError({ code: "FORBIDDEN", message: SEALED_HIDDEN });
    // A text or label filter reads the rollout's content: which sealed rows match would leak it.
    const hideSealed = sealed === "hidden" || (sealed === "scores" && (input.q !== undefined || input.label !== undefined));
    const take = input.limit + 1;
    // A text search finds its page's ids through the search index first (searchRolloutIds), then reads them here.
    const where: Prisma.RolloutWhereInput = input.q
      ? { id: { in: await searchRolloutIds(ctx.db, { ...input, q: input.q, notSealed: hideSealed, after: input.cursor ? BigInt(input.cursor) : undefined, limit: take }) } }
      : hideSealed
        ? { AND: [rolloutWhere(input), { split: { not: "sealed" } }] }
        : rolloutWhere(input);
    const items = await ctx.db.rollout.findMany({
      where,
      orderBy: { id: "asc" },
      take,
      select: {
        id: true,
        split: true,
        step: true,
        taskId: true,
        sample: true,
        reward: true,
        responseTokens: true,
        turns: true,
        truncated: true,
        finishReason: true,
        labels: { select: { label: true, review: true, detectorId: true } },
      },
    });
    const page = await withQuality(ctx.db, runId, items.slice(0, input.limit));
    const nextCursor = items.length > input.limit ? String(page.at(-1)!.id) : null;
    if (sealed === "full") return { items: page, nextCursor };
    return {
      items: page.map((r) => (r.split === "sealed" ? { ...r, taskId: null, responseTokens: null, turns: null, truncated: null, finishReason: null, labels: [] } : r)),
      nextCursor,
    };
  }),

  byId: protectedProcedure.input(z.object({ rolloutId: bigintId })).query(async ({ ctx, input }) => {
    const rollout = await ctx.db.rollout.findUnique({
      where: { id: BigInt(input.rolloutId) },
      include: {
        branch: { select: { version: true } },
        labels: { orderBy: { id: "asc" } },
        job: { select: { externalId: true } },
      },
    });
    if (!rollout) throw new TRPCError({ code: "NOT_FOUND", message: "rollout not found" });
    const { role } = await accessRun(ctx, rollout.runId, "rollout");
    if (rollout.split === "sealed" && (await sealedAccess(ctx, rollout.runId)) !== "full") throw new TRPCError({ code: "FORBIDDEN", message: SEALED_SCORES_ONLY });
    const [detectors, precision, reviews, harness] = await Promise.all([
      labelDetectors(ctx.db, rollout.labels),
      reviewedPrecisionCounts(ctx.db, rollout.runId),
      ctx.db.review.findMany({ where: { rolloutId: rollout.id }, orderBy: { id: "asc" }, select: { label: true, verdict: true, flagged: true, reviewer: true, note: true, createdAt: true } }),
      reviewHarness(ctx.db, rollout.runId),
    ]);
    // The CLI records an import as a job under "import:…": its rollouts never carry per-token log-probs.
    const { job, ...rest } = rollout;
    return {
      ...rest,
      imported: job?.externalId?.startsWith("import:") ?? false,
      labels: rollout.labels.map((l) => ({ ...l, detector: detectorOf(detectors, l), quality: chipText(precision, l) })),
      reviews,
      // Labels a person may add as missed: the harness's labels the detectors did not put on this rollout.
      missable: (harness?.detectors ?? []).map((d) => d.label).filter((label) => !rollout.labels.some((l) => l.label === label)),
      role,
    };
  }),

  /** The same task (same split) in another branch of the run, for a side-by-side comparison. */
  compare: protectedProcedure.input(z.object({ rolloutId: bigintId, otherBranchId: z.string().min(1) })).query(async ({ ctx, input }) => {
    const rollout = await ctx.db.rollout.findUnique({ where: { id: BigInt(input.rolloutId) }, select: { runId: true, taskId: true, split: true } });
    if (!rollout) throw new TRPCError({ code: "NOT_FOUND", message: "rollout not found" });
    await accessRun(ctx, rollout.runId, "rollout");
    if (rollout.split === "sealed" && (await sealedAccess(ctx, rollout.runId)) !== "full") throw new TRPCError({ code: "FORBIDDEN", message: SEALED_SCORES_ONLY });
    const other = await ctx.db.branch.findUnique({ where: { id: input.otherBranchId }, select: { runId: true, version: true } });
    if (other?.runId !== rollout.runId) throw new TRPCError({ code: "NOT_FOUND", message: "branch not found in this run" });
    const rollouts = await ctx.db.rollout.findMany({
      where: { branchId: input.otherBranchId, taskId: rollout.taskId, split: rollout.split },
      orderBy: [{ step: "desc" }, { sample: "asc" }],
      take: 8,
      select: { id: true, step: true, sample: true, reward: true, response: true, trajectory: true, truncated: true, labels: { select: { label: true } } },
    });
    return { version: other.version, taskId: rollout.taskId, rollouts };
  }),

  /**
   * How many of the branch's newest rollouts the text search still matches by scanning them, while
   * the search index catches up with ingest; `limit` is where the count stops.
   */
  searchLag: protectedProcedure.input(z.object({ branchId: z.string().min(1) })).query(async ({ ctx, input }) => {
    const { runId } = await accessBranch(ctx, input.branchId);
    const unindexed = await unindexedRollouts(ctx.db, input.branchId, (await sealedAccess(ctx, runId)) !== "full");
    return { unindexed, limit: UNINDEXED_COUNT_LIMIT };
  }),

  /** Labels present on a branch and how often, from LabelStat. */
  labelCounts: protectedProcedure.input(z.object({ branchId: z.string().min(1) })).query(async ({ ctx, input }) => {
    const { runId } = await accessBranch(ctx, input.branchId);
    // Labels describe responses, not scores: a share link never counts them on the sealed split.
    const split = (await sealedAccess(ctx, runId)) === "full" ? {} : { split: { not: "sealed" as const } };
    const rows = await ctx.db.labelStat.groupBy({ by: ["label"], where: { branchId: input.branchId, ...split }, _sum: { count: true, total: true }, orderBy: { label: "asc" } });
    return rows.map((r) => ({ label: r.label, count: r._sum.count ?? 0, total: r._sum.total ?? 0 }));
  }),

  /** A person confirms or rejects a label by its id; stored as a review (labelReview.submit is the general form). */
  reviewLabel: userProcedure.input(z.object({ labelId: bigintId, review: z.enum(LabelReview) })).mutation(async ({ ctx, input }) => {
    const label = await ctx.db.rolloutLabel.findUnique({
      where: { id: BigInt(input.labelId) },
      select: { label: true, detectorId: true, rollout: { select: { id: true, runId: true, branchId: true } } },
    });
    if (!label) throw new TRPCError({ code: "NOT_FOUND", message: "label not found" });
    await requireRunRole(ctx, label.rollout.runId, "approver", "label");
    const user = await ctx.db.user.findUniqueOrThrow({ where: { id: ctx.userId }, select: { name: true, email: true } });
    const harness = await reviewHarness(ctx.db, label.rollout.runId);
    const review = await ctx.db.$transaction((tx) =>
      recordReview(tx, {
        rollout: label.rollout,
        label: label.label,
        detectorId: label.detectorId,
        harnessVersionId: harness?.id ?? null,
        flagged: true,
        verdict: reviewVerdict(true, input.review === "confirmed"),
        reviewer: { id: ctx.userId, name: user.name || user.email },
        note: null,
        sampling: null,
        actor: `user:${ctx.userId}`,
      }),
    );
    return { id: BigInt(input.labelId), review: input.review, reviewedAt: review.createdAt };
  }),
} satisfies TRPCRouterRecord;
