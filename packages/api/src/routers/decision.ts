import { TRPCError, type TRPCRouterRecord } from "@trpc/server";
import { z } from "zod";
import type { BranchStatus, DecisionKind } from "@evotrainer/db";
import { QueueName } from "@evotrainer/queue";
import { approverProcedure, userProcedure, type Context } from "../trpc.ts";

/**
 * Where a person's decision takes a branch. A branch waits for a person at design (proposed,
 * under a gated policy) or at completion (awaiting_decision). A design decision moves the branch
 * here; a completion decision is only recorded: the worker's decide step settles the branch
 * (promotion, best-so-far, skills, the next round), the one place that owns those transitions.
 */
const transitions: Partial<Record<BranchStatus, { stage: "design" | "completion"; next: Record<DecisionKind, BranchStatus> }>> = {
  proposed: { stage: "design", next: { approve: "queued", revise: "rejected", veto: "vetoed" } },
  awaiting_decision: { stage: "completion", next: { approve: "awaiting_decision", revise: "awaiting_decision", veto: "awaiting_decision" } },
};

async function decide(
  ctx: Pick<Context, "db" | "producer"> & { userId: string; runId: string },
  input: { branchId: string; kind: DecisionKind; reason: string; instructions?: string },
) {
  const branch = await ctx.db.branch.findUniqueOrThrow({ where: { id: input.branchId }, select: { status: true } });
  const transition = transitions[branch.status];
  if (!transition) throw new TRPCError({ code: "PRECONDITION_FAILED", message: `a ${branch.status} branch is not waiting for a decision` });
  const next = transition.next[input.kind];
  const decision = await ctx.db.$transaction(async (tx) => {
    // Guarded on the status read above: two people deciding at once, the second one loses.
    const moved = await tx.branch.updateMany({ where: { id: input.branchId, status: branch.status }, data: { status: next } });
    const decided = await tx.decision.count({ where: { branchId: input.branchId, stage: transition.stage, actorType: "human" } });
    if (moved.count === 0 || decided > 0) throw new TRPCError({ code: "CONFLICT", message: "the branch was decided meanwhile; reload to see the decision" });
    const decision = await tx.decision.create({
      data: { branchId: input.branchId, stage: transition.stage, kind: input.kind, actorType: "human", userId: ctx.userId, reason: input.reason, instructions: input.instructions ?? null },
    });
    await tx.event.create({
      data: {
        runId: ctx.runId,
        branchId: input.branchId,
        type: "decision",
        actor: `user:${ctx.userId}`,
        payload: { decisionId: decision.id, kind: input.kind, stage: transition.stage, from: branch.status, to: next, reason: input.reason, instructions: input.instructions ?? null },
      },
    });
    return decision;
  });
  // After commit: the reconciler re-enqueues from Postgres if Redis is away, so the decision stands either way.
  const enqueued = await ctx
    .producer()
    .enqueue(QueueName.Decide, { runId: ctx.runId, branchId: input.branchId })
    .then(() => true)
    .catch(() => false);
  return { decisionId: decision.id, status: next, enqueued };
}

const note = z.string().trim().max(4_000);

export const decisionRouter = {
  approve: approverProcedure.input(z.object({ reason: note.default("") })).mutation(({ ctx, input }) => decide(ctx, { ...input, kind: "approve" })),
  revise: approverProcedure
    .input(z.object({ instructions: note.min(1, { error: "say what the proposer should change" }) }))
    .mutation(({ ctx, input }) => decide(ctx, { branchId: input.branchId, kind: "revise", reason: "revise", instructions: input.instructions })),
  veto: approverProcedure
    .input(z.object({ reason: note.min(1, { error: "a veto needs a reason" }) }))
    .mutation(({ ctx, input }) => decide(ctx, { ...input, kind: "veto" })),

  /** Everything waiting for a person across the caller's runs, with the evidence to decide on one screen. */
  inbox: userProcedure.query(async ({ ctx }) => {
    const memberships = await ctx.db.membership.findMany({ where: { userId: ctx.userId }, select: { organizationId: true, role: true } });
    const roleByOrg = new Map(memberships.map((m) => [m.organizationId, m.role]));
    const branches = await ctx.db.branch.findMany({
      where: { status: "awaiting_decision", run: { organizationId: { in: [...roleByOrg.keys()] } } },
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
