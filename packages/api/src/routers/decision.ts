import { TRPCError, type TRPCRouterRecord } from "@trpc/server";
import { z } from "zod";
import { overridePolicyVeto, recordDecision, type DecisionKind } from "@evotrainer/db";
import { QueueName } from "@evotrainer/queue";
import { approverProcedure, userProcedure, type Context } from "../trpc.ts";

/**
 * Records a person's decision through the one decision writer (the CLI uses the same), then asks the
 * worker to apply it: the decide step settles the branch (promotion, best-so-far, skills, the next
 * round) or, at design, starts or turns down the round's training: the one place that owns those moves.
 */
async function decide(
  ctx: Pick<Context, "db" | "producer"> & { userId: string; runId: string },
  input: { branchId: string; kind: DecisionKind; reason: string; instructions?: string; approveAnyway?: boolean },
) {
  const recorded = await ctx.db.$transaction((tx) =>
    recordDecision(tx, {
      branchId: input.branchId,
      kind: input.kind,
      reason: input.reason,
      instructions: input.instructions ?? null,
      approveAnyway: input.approveAnyway ?? false,
      actor: { kind: "human", userId: ctx.userId },
    }),
  );
  if (recorded.outcome === "refused") {
    if (recorded.reason === "already_decided") return sameDecisionAgain(ctx, input, recorded.message);
    throw new TRPCError({ code: recorded.reason === "override_needs_reason" ? "BAD_REQUEST" : "PRECONDITION_FAILED", message: recorded.message });
  }
  // After commit: the reconciler re-enqueues from Postgres if Redis is away, so the decision stands either way.
  const enqueued = await ctx
    .producer()
    .enqueue(QueueName.Decide, { runId: ctx.runId, branchId: input.branchId })
    .then(() => true)
    .catch(() => false);
  return { decisionId: recorded.decisionId, status: recorded.to, enqueued, alreadyDecided: false };
}

/**
 * A second click, a retried request or a colleague deciding the same way at once: the decision
 * already stands, so the answer says so instead of failing. A different decision is a real conflict.
 */
async function sameDecisionAgain(ctx: Pick<Context, "db">, input: { branchId: string; kind: DecisionKind }, message: string) {
  const last = await ctx.db.decision.findFirst({ where: { branchId: input.branchId }, orderBy: { createdAt: "desc" }, select: { id: true, kind: true, branch: { select: { status: true } } } });
  if (!last || last.kind !== input.kind) throw new TRPCError({ code: "CONFLICT", message });
  return { decisionId: last.id, status: last.branch.status, enqueued: false, alreadyDecided: true };
}

const note = z.string().trim().max(4_000);

export const decisionRouter = {
  /** Against a failed verdict only with `approveAnyway` and a reason: the override is audited with the checks it overrode. */
  approve: approverProcedure
    .input(z.object({ reason: note.default(""), approveAnyway: z.boolean().default(false) }))
    .mutation(({ ctx, input }) => decide(ctx, { ...input, kind: "approve" })),
  revise: approverProcedure
    .input(z.object({ instructions: note.min(1, { error: "say what the proposer should change" }) }))
    .mutation(({ ctx, input }) => decide(ctx, { branchId: input.branchId, kind: "revise", reason: "revise", instructions: input.instructions })),
  veto: approverProcedure
    .input(z.object({ reason: note.min(1, { error: "a veto needs a reason" }) }))
    .mutation(({ ctx, input }) => decide(ctx, { ...input, kind: "veto" })),

  /**
   * Overrides the autonomy policy's veto of a judged branch and promotes it: a person's written reason
   * is required and audited with the checks it overrode. The next round already started without it;
   * the branch becomes the best so far when it scores higher, so later rounds build on it.
   */
  overrideVeto: approverProcedure
    .input(z.object({ reason: note }))
    .mutation(async ({ ctx, input }) => {
      const recorded = await ctx.db.$transaction((tx) => overridePolicyVeto(tx, { branchId: input.branchId, userId: ctx.userId, reason: input.reason }));
      if (recorded.outcome === "refused") {
        // A second click after the override went through: it stands, so say so rather than fail.
        const last = await ctx.db.decision.findFirst({ where: { branchId: input.branchId, stage: "completion" }, orderBy: { createdAt: "desc" }, select: { id: true, kind: true, actorType: true } });
        if (last?.kind === "approve" && last.actorType === "human") return { decisionId: last.id, status: "promoted" as const, bestSoFar: false, alreadyDecided: true };
        throw new TRPCError({ code: recorded.reason === "override_needs_reason" ? "BAD_REQUEST" : "PRECONDITION_FAILED", message: recorded.message });
      }
      return { decisionId: recorded.decisionId, status: "promoted" as const, bestSoFar: recorded.bestSoFar, alreadyDecided: false };
    }),

  /** Everything waiting for a person across the caller's runs, with the evidence to decide on one screen. */
  inbox: userProcedure.query(async ({ ctx }) => {
    const memberships = await ctx.db.membership.findMany({ where: { userId: ctx.userId }, select: { organizationId: true, role: true } });
    const roleByOrg = new Map(memberships.map((m) => [m.organizationId, m.role]));
    const branches = await ctx.db.branch.findMany({
      // A decided branch stays awaiting_decision until the worker applies the decision: it has left the inbox already.
      where: { status: "awaiting_decision", decisions: { none: { stage: "completion" } }, run: { organizationId: { in: [...roleByOrg.keys()] } } },
      orderBy: { updatedAt: "asc" },
      take: 200,
      select: {
        id: true,
        version: true,
        status: true,
        promotionScore: true,
        updatedAt: true,
        run: { select: { id: true, name: true, organizationId: true } },
        intervention: { select: { hypothesis: true, factor: true, targetMetric: true, backtest: { select: { predictedEffect: true, realisedEffect: true } } } },
        verdict: { select: { passed: true, promotionScore: true, deltaVsParent: true, ciLow: true, ciHigh: true, checks: true } },
      },
    });
    return branches.map((b) => ({ ...b, canDecide: ["approver", "admin"].includes(roleByOrg.get(b.run.organizationId) ?? "") }));
  }),
} satisfies TRPCRouterRecord;
