import { admitDecision, type DecisionKind, type DecisionStage } from "@evotrainer/core";
import { recordEvent, type Tx } from "./events.ts";

/** Who decides: a person (by user id, from the dashboard, the API or the CLI alike) or the autonomy policy. */
export type DecisionActor = { kind: "human"; userId: string } | { kind: "policy" };

export interface DecisionRequest {
  branchId: string;
  kind: DecisionKind;
  reason: string;
  /** A revise's instructions: what the proposer should change in the round this decision is given for. */
  instructions?: string | null;
  actor: DecisionActor;
}

export type DecisionRecord =
  | { outcome: "recorded"; decisionId: string; runId: string; stage: DecisionStage; from: string; to: string }
  | { outcome: "refused"; reason: "not_waiting" | "already_decided"; message: string };

/**
 * The one writer of decisions. Locks the branch, asks core whether this decision may be recorded now,
 * then stores it, moves a design-stage branch on, and appends the `decision` event with the real actor,
 * all in the caller's transaction. The API, the CLI and the worker's policy all come through here, so
 * they share the guards: a second decision at the same stage is refused wherever it comes from.
 */
export async function recordDecision(tx: Tx, request: DecisionRequest): Promise<DecisionRecord> {
  const [branch] = await tx.$queryRaw<{ runId: string; status: string }[]>`
    SELECT "runId", status::text AS status FROM "Branch" WHERE id = ${request.branchId} FOR UPDATE`;
  if (!branch) return { outcome: "refused", reason: "not_waiting", message: `no branch with id ${request.branchId}` };
  const decided = await tx.decision.findMany({ where: { branchId: request.branchId }, select: { stage: true } });
  const admission = admitDecision({
    status: branch.status as Parameters<typeof admitDecision>[0]["status"],
    actor: request.actor.kind,
    kind: request.kind,
    decidedAtStage: (stage) => decided.some((d) => d.stage === stage),
  });
  if (admission.outcome === "refused") return admission;
  const userId = request.actor.kind === "human" ? request.actor.userId : null;
  const decision = await tx.decision.create({
    data: {
      branchId: request.branchId,
      stage: admission.stage,
      kind: request.kind,
      actorType: request.actor.kind,
      userId,
      reason: request.reason,
      instructions: request.instructions ?? null,
    },
  });
  if (admission.next !== branch.status) await tx.branch.update({ where: { id: request.branchId }, data: { status: admission.next } });
  await recordEvent(tx, {
    runId: branch.runId,
    branchId: request.branchId,
    type: "decision",
    actor: userId ? `user:${userId}` : "policy",
    payload: { decisionId: decision.id, kind: request.kind, stage: admission.stage, from: branch.status, to: admission.next, reason: request.reason, instructions: request.instructions ?? null },
  });
  return { outcome: "recorded", decisionId: decision.id, runId: branch.runId, stage: admission.stage, from: branch.status, to: admission.next };
}
