import { TRPCError, type TRPCRouterRecord } from "@trpc/server";
import { z } from "zod";
import { reviewVerdict } from "@evotrainer/core";
import { recordReview, reviewHarness, runLabelQuality, runReviewQueue, ReviewVerdict, type Database } from "@evotrainer/db";
import { accessRun, protectedProcedure, requireRunRole, userProcedure } from "../trpc.ts";
import { int64Id } from "./ids.ts";
import { printable } from "../input/printable-text.ts";

/** Questions per detector in the review queue: flagged rollouts for precision, unflagged ones for recall. */
const QUEUE_SIZES = { flagged: 30, unflagged: 30 };
const labelName = printable(z.string().min(1).max(100));
const note = z.string().max(2000).optional();

/** One line of a truth file (`evotrainer labels export` writes them, `labels import` reads them). */
export const truthLineSchema = z.strictObject({
  // The run it was exported from; `labels import` loads into it unless told another.
  run: z.string().min(1).optional(),
  rolloutUid: z.string().min(1).max(500),
  // The branch version (v1 → 1): a rollout's uid is unique within its branch only.
  branch: z.number().int().min(0).optional(),
  detector: labelName,
  verdict: z.enum(ReviewVerdict),
  reviewer: printable(z.string().min(1).max(200)),
  note: z.string().max(2000).nullable().optional(),
});
export type TruthLine = z.infer<typeof truthLineSchema>;

async function reviewerName(db: Database, userId: string): Promise<string> {
  const user = await db.user.findUniqueOrThrow({ where: { id: userId }, select: { name: true, email: true } });
  return user.name || user.email;
}

/** Whether the rollout carries the label, and the detector a review of it measures. */
async function labelTarget(db: Database, rollout: { id: bigint; runId: string }, label: string, harness: Awaited<ReturnType<typeof reviewHarness>>) {
  const flaggedBy = await db.rolloutLabel.findFirst({ where: { rolloutId: rollout.id, label }, select: { detectorId: true } });
  const detectorId = flaggedBy?.detectorId ?? harness?.detectors.find((d) => d.label === label)?.id ?? null;
  return { flagged: flaggedBy !== null, detectorId };
}

export const labelReviewRouter = {
  /**
   * A person's judgement of one label on one rollout: `holds` true confirms a flag (or adds a label the
   * detectors missed), false rejects it. From the queue, the review keeps the rollout's sampling weight.
   */
  submit: userProcedure
    .input(z.object({ rolloutId: int64Id, label: labelName, holds: z.boolean(), note, fromQueue: z.boolean().default(false) }))
    .mutation(async ({ ctx, input }) => {
      const rollout = await ctx.db.rollout.findUnique({ where: { id: BigInt(input.rolloutId) }, select: { id: true, runId: true, branchId: true, split: true } });
      if (!rollout) throw new TRPCError({ code: "NOT_FOUND", message: "rollout not found" });
      await requireRunRole(ctx, rollout.runId, "approver", "rollout");
      if (rollout.split === "sealed") throw new TRPCError({ code: "BAD_REQUEST", message: "rollouts of the sealed split are not reviewed: the evaluation stays locked" });
      const harness = await reviewHarness(ctx.db, rollout.runId);
      const { flagged, detectorId } = await labelTarget(ctx.db, rollout, input.label, harness);
      let sampling: { stratum: string; weight: number } | null = null;
      if (input.fromQueue) {
        const queue = await runReviewQueue(ctx.db, rollout.runId, QUEUE_SIZES);
        const item = queue?.items.find((i) => i.rolloutId === input.rolloutId && i.label === input.label);
        if (!item) throw new TRPCError({ code: "BAD_REQUEST", message: `label: ${input.label} on rollout ${input.rolloutId} is not in this run's review queue` });
        sampling = { stratum: item.stratum, weight: item.weight };
      }
      const name = await reviewerName(ctx.db, ctx.userId);
      return ctx.db.$transaction((tx) =>
        recordReview(tx, {
          rollout,
          label: input.label,
          detectorId,
          harnessVersionId: harness?.id ?? null,
          flagged,
          verdict: reviewVerdict(flagged, input.holds),
          reviewer: { id: ctx.userId, name },
          note: input.note?.trim() || null,
          sampling,
          actor: `user:${ctx.userId}`,
        }),
      );
    }),

  /** The review queue of a run's harness version, with what is reviewed; viewers see it, approvers work it. */
  queue: protectedProcedure.input(z.object({ runId: z.string().min(1), harnessVersionId: z.string().min(1).optional() })).query(async ({ ctx, input }) => {
    const { role } = await accessRun(ctx, input.runId);
    const state = await runReviewQueue(ctx.db, input.runId, QUEUE_SIZES, input.harnessVersionId);
    if (!state) throw new TRPCError({ code: "NOT_FOUND", message: "this run has no harness version to review" });
    return { ...state, role };
  }),

  /** Per detector of the harness version: precision, estimated recall, reviews and informativeness. */
  quality: protectedProcedure.input(z.object({ runId: z.string().min(1), harnessVersionId: z.string().min(1).optional() })).query(async ({ ctx, input }) => {
    await accessRun(ctx, input.runId);
    return runLabelQuality(ctx.db, input.runId, input.harnessVersionId);
  }),

  /** The run's reviews as truth-file lines. */
  export: userProcedure.input(z.object({ runId: z.string().min(1) })).query(async ({ ctx, input }) => {
    await accessRun(ctx, input.runId);
    const rows = await ctx.db.review.findMany({
      where: { runId: input.runId },
      orderBy: { id: "asc" },
      select: { label: true, verdict: true, reviewer: true, note: true, rollout: { select: { uid: true, branch: { select: { version: true } } } } },
    });
    return rows.map((r): TruthLine => ({ run: input.runId, rolloutUid: r.rollout.uid, branch: r.rollout.branch.version, detector: r.label, verdict: r.verdict, reviewer: r.reviewer, note: r.note }));
  }),

  /**
   * Loads a truth file's reviews into a run, so a team's own hand labels count. Every line must name a
   * rollout of the run, or nothing is stored. A line's verdict says whether the label holds; whether it
   * is a confirmation or a miss follows from the rollout's labels here.
   */
  import: userProcedure.input(z.object({ runId: z.string().min(1), lines: z.array(truthLineSchema).min(1).max(20_000) })).mutation(async ({ ctx, input }) => {
    await requireRunRole(ctx, input.runId, "approver");
    const rollouts = await ctx.db.rollout.findMany({
      where: { runId: input.runId, uid: { in: [...new Set(input.lines.map((l) => l.rolloutUid))] }, split: { not: "sealed" } },
      select: { id: true, runId: true, branchId: true, uid: true, branch: { select: { version: true } } },
    });
    const problems: string[] = [];
    const targets = input.lines.map((line, i) => {
      const matches = rollouts.filter((r) => r.uid === line.rolloutUid && (line.branch === undefined || r.branch.version === line.branch));
      if (matches.length !== 1) problems.push(`line ${i + 1}: ${matches.length === 0 ? "no rollout" : "several rollouts (give its branch)"} with uid ${line.rolloutUid} in this run`);
      return matches[0];
    });
    if (problems.length > 0) throw new TRPCError({ code: "BAD_REQUEST", message: `nothing imported: ${problems.slice(0, 5).join("; ")}${problems.length > 5 ? `; and ${problems.length - 5} more` : ""}` });
    const harness = await reviewHarness(ctx.db, input.runId);
    await ctx.db.$transaction(
      async (tx) => {
        for (const [i, line] of input.lines.entries()) {
          const rollout = targets[i]!;
          const { flagged, detectorId } = await labelTarget(ctx.db, rollout, line.detector, harness);
          await recordReview(tx, {
            rollout,
            label: line.detector,
            detectorId,
            harnessVersionId: harness?.id ?? null,
            flagged,
            verdict: reviewVerdict(flagged, line.verdict !== "rejected"),
            reviewer: { id: null, name: line.reviewer },
            note: line.note ?? null,
            sampling: null,
            actor: `user:${ctx.userId}`,
          });
        }
      },
      { timeout: 120_000 },
    );
    return { imported: input.lines.length };
  }),
} satisfies TRPCRouterRecord;
