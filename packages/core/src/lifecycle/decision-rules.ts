import type { BranchStatus } from "./statuses.ts";

export type DecisionKind = "approve" | "revise" | "veto";
export type DecisionActorKind = "human" | "policy";
export type DecisionStage = "design" | "completion";

export type DecisionAdmission =
  | { outcome: "admitted"; stage: DecisionStage; next: BranchStatus }
  | { outcome: "refused"; reason: "not_waiting" | "already_decided"; message: string };

/**
 * Whether a decision may be recorded on a branch now, at which stage, and the status it moves the
 * branch to at once. A person decides a branch waiting for them: `proposed` at design (approve queues
 * it for training) or `awaiting_decision` at completion. The policy decides a judged branch nobody
 * was asked about (`evaluating`). Either way one decision per stage: a second one is refused, from
 * whichever entry point it comes. A completion decision leaves the status alone: applying it (promote,
 * best so far, skills) is the worker's settle step, see `settledStatus`.
 */
export function admitDecision(input: { status: BranchStatus; actor: DecisionActorKind; kind: DecisionKind; decidedAtStage: (stage: DecisionStage) => boolean }): DecisionAdmission {
  const stage = waitingStage(input.status, input.actor);
  if (!stage) return { outcome: "refused", reason: "not_waiting", message: `a ${input.status} branch is not waiting for a decision` };
  if (input.decidedAtStage(stage)) return { outcome: "refused", reason: "already_decided", message: `the branch was already decided at ${stage}; reload to see the decision` };
  const next: BranchStatus = stage === "design" ? ({ approve: "queued", revise: "rejected", veto: "vetoed" } as const)[input.kind] : input.status;
  return { outcome: "admitted", stage, next };
}

function waitingStage(status: BranchStatus, actor: DecisionActorKind): DecisionStage | null {
  if (actor === "human") return status === "proposed" ? "design" : status === "awaiting_decision" ? "completion" : null;
  return status === "evaluating" ? "completion" : null;
}

/** The status a completion decision settles a branch in: only a person's veto is a veto; the policy rejects. */
export function settledStatus(decision: { kind: DecisionKind; actor: DecisionActorKind }): "promoted" | "rejected" | "vetoed" {
  if (decision.kind === "approve") return "promoted";
  return decision.actor === "human" && decision.kind === "veto" ? "vetoed" : "rejected";
}
