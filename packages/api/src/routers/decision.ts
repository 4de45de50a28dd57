import { TRPCError, type TRPCRouterRecord } from "@trpc/server";
import { z } from "zod";
import { recordDecision, type DecisionKind } from "@evotrainer/db";
import { QueueName } from "@evotrainer/queue";
import { approverProcedure, userProcedure, type Context } from "../trpc.ts";

/**
 * Records a person's decision through the one decision writer (the CLI uses the same), then asks the
 * worker to apply it: the decide step settles the branch (promotion, best-so-far, skills, the next
 * round) or, at design, starts or turns down the round's training: the one place that owns those moves.
 */
async function decide(
  ctx: Pick<Context, "db" | "producer"> & { userId: string; runId: string },
  input: { branchId: string; kind: DecisionKind; reason: string; instructions?: string },
) {
  const recorded = await ctx.db.$transaction((tx) =>
    recordDecision(tx, { branchId: input.branchId, kind: input.kind, reason: input.reason, instructions: input.instructions ?? null, actor: { kind: "human", userId: ctx.userId } }),
  );
  if (recorded.outcome === "refused") {
    throw new TRPCError({ code: recorded.reason === "already_decided" ? "CONFLICT" : "PRECONDITION_FAILED", message: recorded.message });
  }
  // After commit: the reconciler re-enqueues from Postgres if Redis is away, so the decision stands either way.
  const enqueued = await ctx
    .producer()
    .enqueue(QueueName.Decide, { runId: ctx.runId, branchId: input.branchId })
    .then(() => true)
    .catch(() => false);
  return { decisionId: recorded.decisionId, status: recorded.to, enqueued };
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
