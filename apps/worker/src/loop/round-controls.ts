import { addControlRound, critFindings, judgeRound, NO_NOISE_FLOOR, roundTestOptions, type BranchMetrics, type CompiledHarness, type ControlComparison, type RunConfig } from "@evotrainer/core";
import { alphaSpentBefore, recordEvent, type Database } from "@evotrainer/db";
import { QueueName } from "@evotrainer/queue";
import { advanceRun } from "./advance-run.ts";
import type { LoopDeps } from "./deps.ts";
import { gateSide } from "./gate-side.ts";

type Tx = Parameters<Parameters<Database["$transaction"]>[0]>[0];

// A sibling still on its way to evaluation: the round's comparison cannot be made yet.
const UNFINISHED = ["proposed", "queued", "training"] as const;
// A candidate that reached evaluation has promotion rollouts and is one of the round's K tests.
const EVALUATED = ["evaluating", "awaiting_decision", "promoted", "rejected", "vetoed"] as const;
// A candidate whose training failed was tested too, by the proposer's choice: it stays in Holm's
// family (with p = 1), so failures cannot make the round's level more lenient for the rest.
const FAILED = "failed";

/**
 * Creates the round's control children next to its candidates: the parent's recipe unchanged, from
 * the parent's checkpoint for the same steps. Each gets its own version, so the job-seed protocol
 * (run seed and branch version) gives each its own training seed, as it does a candidate.
 */
export async function createControls(
  tx: Tx,
  args: { runId: string; parent: { id: string; recipeId: string }; round: number; version: number; replicates: number; status: "queued" | "proposed" },
): Promise<string[]> {
  const ids: string[] = [];
  let version = args.version;
  for (let replicate = 1; replicate <= args.replicates; replicate++) {
    const branch = await tx.branch.create({
      data: { runId: args.runId, parentId: args.parent.id, version: ++version, round: args.round, status: args.status, kind: "control", recipeId: args.parent.recipeId },
    });
    await recordEvent(tx, { runId: args.runId, branchId: branch.id, type: "branch_created", actor: "system", payload: { version, control: true, replicate, parent: args.parent.id } });
    ids.push(branch.id);
  }
  return ids;
}

/**
 * A control is not judged: once trained and evaluated its score is recorded, it settles as a
 * (never promotable) rejected branch, and its candidate siblings are asked for their verdicts.
 */
export async function measureControl(deps: LoopDeps, harness: CompiledHarness, branch: { id: string; runId: string; parentId: string | null; round: number }): Promise<string> {
  const side = await gateSide(deps, harness, branch.id);
  const moved = await deps.db.$transaction(async (tx) => {
    const done = await tx.branch.updateMany({ where: { id: branch.id, status: "evaluating" }, data: { status: "rejected", promotionScore: side.score } });
    if (done.count === 0) return false;
    await recordEvent(tx, { runId: branch.runId, branchId: branch.id, type: "control_measured", actor: "system", payload: { promotionScore: side.score, tasks: side.taskScores.size, round: branch.round } });
    return true;
  });
  if (!moved) return "control already measured";
  await wakeRound(deps, branch);
  // A round whose candidates all failed has nothing else left to move the run on.
  await advanceRun(deps, branch.runId);
  return `control measured: ${side.score.toFixed(4)}`;
}

/** Asks every evaluated candidate of the branch's round for its verdict again (the step is idempotent). */
export async function wakeRound(deps: LoopDeps, branch: { runId: string; parentId: string | null; round: number }): Promise<void> {
  if (!branch.parentId) return;
  const waiting = await deps.db.branch.findMany({ where: { runId: branch.runId, parentId: branch.parentId, round: branch.round, kind: "candidate", status: "evaluating" }, select: { id: true } });
  for (const b of waiting) await deps.producer.enqueue(QueueName.Verdict, { runId: branch.runId, branchId: b.id });
}

/**
 * The seed-aware comparison for one candidate, or why it must wait: every sibling of the round
 * (candidates for Holm's family, controls as baseline) must have finished training first. The noise
 * floor pools the control replicates of this round and of every earlier round from the same parent;
 * the round's alpha is what the run's spending allows after what its earlier verdicts spent.
 */
export async function roundComparison(
  deps: LoopDeps,
  harness: CompiledHarness,
  branch: { id: string; runId: string; parentId: string; round: number },
  config: RunConfig,
): Promise<{ waiting: string } | { vsControl: ControlComparison; controlCrit: string[]; controlMetrics: BranchMetrics[] }> {
  const siblings = await deps.db.branch.findMany({ where: { runId: branch.runId, parentId: branch.parentId, round: branch.round }, select: { id: true, kind: true, status: true }, orderBy: { version: "asc" } });
  const unfinished = siblings.filter((s) => (UNFINISHED as readonly string[]).includes(s.status) || (s.kind === "control" && s.status === "evaluating"));
  if (unfinished.length > 0) return { waiting: `waiting for ${unfinished.length} sibling(s) of round ${branch.round} to finish` };

  const controls = siblings.filter((s) => s.kind === "control" && s.status === "rejected");
  const candidates = siblings.filter((s) => s.kind === "candidate" && (EVALUATED as readonly string[]).includes(s.status));
  const untested = siblings.filter((s) => s.kind === "candidate" && s.status === FAILED).length;
  const controlScores = [];
  const controlMetrics: BranchMetrics[] = [];
  const controlCrit = new Set<string>();
  for (const c of controls) {
    const control = await gateSide(deps, harness, c.id);
    controlScores.push(control.taskScores);
    controlMetrics.push(control.report.metrics);
    for (const finding of critFindings(control.report)) controlCrit.add(finding);
  }
  const candidateScores = new Map<string, ReadonlyMap<string, number>>();
  for (const c of candidates) candidateScores.set(c.id, (await gateSide(deps, harness, c.id)).taskScores);

  const measured = await deps.db.branch.findMany({
    where: { runId: branch.runId, parentId: branch.parentId, kind: "control", status: "rejected", round: { lte: branch.round }, promotionScore: { not: null } },
    select: { round: true, promotionScore: true },
    orderBy: [{ round: "asc" }, { version: "asc" }],
  });
  const groups = new Map<number, number[]>();
  for (const m of measured) groups.set(m.round, [...(groups.get(m.round) ?? []), m.promotionScore!]);
  const floor = [...groups.values()].reduce(addControlRound, NO_NOISE_FLOOR);
  const spentBefore = await alphaSpentBefore(deps.db, branch.runId, branch.round);
  const options = roundTestOptions(config, { round: branch.round, spentBefore, untested });
  return { vsControl: judgeRound(candidateScores, controlScores, floor, options).get(branch.id)!, controlCrit: [...controlCrit].sort(), controlMetrics };
}
