import { QueueName } from "@evotrainer/queue";
import { advanceRun } from "./advance-run.ts";
import type { LoopDeps } from "./deps.ts";

/**
 * Moves a design-gated round on after a person's design decision. A candidate approved at design
 * trains, and with it the round's controls (candidates are judged against them). Once every candidate
 * of the round was turned down, the controls are cancelled (there is nothing to compare them with) and
 * the run moves on. Safe to repeat: each move is guarded on the status it leaves.
 */
export async function applyDesignDecision(deps: LoopDeps, branch: { runId: string; parentId: string | null; round: number }): Promise<string> {
  const { db } = deps;
  const siblings = await db.branch.findMany({ where: { runId: branch.runId, parentId: branch.parentId, round: branch.round }, select: { id: true, kind: true, status: true } });
  const candidates = siblings.filter((b) => b.kind === "candidate");
  const controls = siblings.filter((b) => b.kind === "control" && b.status === "proposed").map((b) => b.id);
  const decided = await db.decision.findMany({ where: { branchId: { in: candidates.map((c) => c.id) }, stage: "design" }, select: { branchId: true, kind: true } });
  const approved = candidates.filter((c) => c.status === "queued" && decided.some((d) => d.branchId === c.id && d.kind === "approve"));
  if (approved.length > 0) {
    await db.branch.updateMany({ where: { id: { in: controls }, status: "proposed" }, data: { status: "queued" } });
    for (const { id } of [...approved, ...controls.map((id) => ({ id }))]) await deps.producer.enqueue(QueueName.Dispatch, { runId: branch.runId, branchId: id });
    return `${approved.length} candidate(s) approved at design: training with ${controls.length} control(s)`;
  }
  if (candidates.some((c) => c.status === "proposed")) return "waiting for the round's other design decisions";
  if (candidates.some((c) => decided.some((d) => d.branchId === c.id && d.kind === "approve"))) return "the round's approved candidates are under way";
  await db.branch.updateMany({ where: { id: { in: controls }, status: "proposed" }, data: { status: "cancelled" } });
  await advanceRun(deps, branch.runId);
  return "every candidate of the round was turned down at design";
}
