import { admitApproval, admitDecision, admitVetoOverride, type DecisionKind, type DecisionStage, type StoredCheck } from "@evotrainer/core";
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
  /** A person approving a branch whose verdict failed says so explicitly; the reason is then required. */
  approveAnyway?: boolean;
}

export type DecisionRecord =
  | { outcome: "recorded"; decisionId: string; runId: string; stage: DecisionStage; from: string; to: string }
  | { outcome: "refused"; reason: "not_waiting" | "already_decided" | "override_needs_reason"; message: string; failedChecks?: string[] };

/**
 * The one writer of decisions. Locks the branch, asks core whether this decision may be recorded now,
 * then stores it, moves a design-stage branch on, and appends the `decision` event with the real actor,
 * all in the caller's transaction. The API, the CLI and the worker's policy all come through here, so
 * they share the guards: a second decision at the same stage is refused wherever it comes from, and a
 * person's approval against a failed verdict stands only as an override with a reason, which the event records.
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
  let override: { kind: "failed_verdict"; failedChecks: string[] } | null = null;
  if (request.actor.kind === "human" && request.kind === "approve" && admission.stage === "completion") {
    const verdict = await tx.verdict.findUnique({ where: { branchId: request.branchId }, select: { checks: true } });
    const approval = admitApproval({ checks: (verdict?.checks as StoredCheck[] | undefined) ?? null, approveAnyway: request.approveAnyway ?? false, reason: request.reason });
    if (approval.outcome === "refused") return approval;
    override = approval.override;
  }
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
    payload: { decisionId: decision.id, kind: request.kind, stage: admission.stage, from: branch.status, to: admission.next, reason: request.reason, instructions: request.instructions ?? null, ...(override ? { override } : {}) },
  });
  return { outcome: "recorded", decisionId: decision.id, runId: branch.runId, stage: admission.stage, from: branch.status, to: admission.next };
}

export type VetoOverrideRecord =
  | { outcome: "recorded"; decisionId: string; runId: string; bestSoFar: boolean }
  | { outcome: "refused"; reason: "not_policy_veto" | "base_branch" | "run_finished" | "override_needs_reason"; message: string };

/**
 * A person overrides the policy's veto of a judged branch: the approval is recorded next to the veto
 * it overrides, with the reason and the checks that failed, and the branch is promoted (and made the
 * best so far when it scores higher) at once, under the run's lock as the worker's settle step does.
 */
export async function overridePolicyVeto(tx: Tx, request: { branchId: string; userId: string; reason: string }): Promise<VetoOverrideRecord> {
  const [branch] = await tx.$queryRaw<{ runId: string; parentId: string | null; status: string; promotionScore: number | null }[]>`
    SELECT "runId", "parentId", status::text AS status, "promotionScore" FROM "Branch" WHERE id = ${request.branchId} FOR UPDATE`;
  if (!branch) return { outcome: "refused", reason: "not_policy_veto", message: `no branch with id ${request.branchId}` };
  const [run] = await tx.$queryRaw<{ status: string; bestBranchId: string | null }[]>`
    SELECT status::text AS status, "bestBranchId" FROM "Run" WHERE id = ${branch.runId} FOR UPDATE`;
  const decisions = await tx.decision.findMany({ where: { branchId: request.branchId, stage: "completion" }, orderBy: { createdAt: "asc" }, select: { id: true, kind: true, actorType: true } });
  const admission = admitVetoOverride({
    status: branch.status as Parameters<typeof admitVetoOverride>[0]["status"],
    isBase: branch.parentId === null,
    runStatus: run!.status as Parameters<typeof admitVetoOverride>[0]["runStatus"],
    completionDecisions: decisions.map((d) => ({ id: d.id, kind: d.kind, actor: d.actorType })),
  });
  if (admission.outcome === "refused") return admission;
  // Asked only once the override is open: a finished run refuses before anyone writes a reason.
  if (request.reason.trim() === "") return { outcome: "refused", reason: "override_needs_reason", message: "overriding the policy's veto needs a reason" };
  const verdict = await tx.verdict.findUnique({ where: { branchId: request.branchId }, select: { checks: true } });
  const failedChecks = ((verdict?.checks as StoredCheck[] | undefined) ?? []).filter((c) => !c.passed && c.blocking !== false).map((c) => c.name);
  const decision = await tx.decision.create({
    data: { branchId: request.branchId, stage: "completion", kind: "approve", actorType: "human", userId: request.userId, reason: request.reason },
  });
  await tx.branch.update({ where: { id: request.branchId }, data: { status: admission.next } });
  const override = { kind: "policy_veto", overriddenDecisionId: admission.overriddenDecisionId, failedChecks };
  await recordEvent(tx, {
    runId: branch.runId,
    branchId: request.branchId,
    type: "decision",
    actor: `user:${request.userId}`,
    payload: { decisionId: decision.id, kind: "approve", stage: "completion", from: branch.status, to: admission.next, reason: request.reason, instructions: null, override },
  });
  await recordEvent(tx, { runId: branch.runId, branchId: request.branchId, type: "branch_settled", actor: `user:${request.userId}`, payload: { decisionId: decision.id, kind: "approve", status: admission.next, override: "policy_veto" } });
  const best = run!.bestBranchId ? await tx.branch.findUnique({ where: { id: run!.bestBranchId }, select: { promotionScore: true } }) : null;
  const bestSoFar = (best?.promotionScore ?? -Infinity) < (branch.promotionScore ?? -Infinity);
  if (bestSoFar) {
    await tx.run.update({ where: { id: branch.runId }, data: { bestBranchId: request.branchId } });
    await recordEvent(tx, { runId: branch.runId, branchId: request.branchId, type: "promotion", actor: `user:${request.userId}`, payload: { bestSoFar: request.branchId, previous: run!.bestBranchId, score: branch.promotionScore } });
  }
  return { outcome: "recorded", decisionId: decision.id, runId: branch.runId, bestSoFar };
}
