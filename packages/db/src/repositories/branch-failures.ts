import { FINAL_TRAIN_STEPS, runConfigOf, type Domain, type Harness, type Label, type LabelVerdict, type RolloutContext } from "@evotrainer/core";
import type { Rollout } from "@evotrainer/contract";
import type { Database } from "../client.ts";
import { loadLastTrainSteps } from "./branch-rollouts.ts";
import { loadHarnessVersion } from "./harness-versions.ts";

/** What deciding which of a branch's rollouts failed, and why, needs: the rollouts, the harness and the success rule. */
export interface BranchFailureData {
  runId: string;
  domain: Domain;
  /** The run's harness version, which judges the branch (its verdict and its labels). */
  harnessVersionId: string;
  harness: Harness;
  /** The branch's success rule: reward at least this, and no validity label. */
  successThreshold: number;
  context: RolloutContext;
  rollouts: Rollout[];
  /** Only labels that a detector of this harness version gave: an older rule's label explains nothing now. */
  labels: Label[];
  /** rollout uid → database id, for links to the rollout. */
  rolloutIds: Map<string, string>;
}

/**
 * A branch's rollouts of its last training steps (what its diagnosis reads), with the labels of the
 * run's harness version. Rollouts whose text was not kept come back without it, and so with no
 * error to read.
 */
export async function loadBranchFailureData(db: Database, branchId: string): Promise<BranchFailureData> {
  const branch = await db.branch.findUniqueOrThrow({ where: { id: branchId }, include: { run: true, recipe: { select: { canonical: true } } } });
  const config = runConfigOf(branch.run);
  const harnessVersionId = branch.run.harnessVersionId!;
  const { definition } = await loadHarnessVersion(db, harnessVersionId);
  const harness = definition as Harness;
  const current = new Set(harness.detectors.map((d) => `${d.id}@${d.version}`));
  const { rollouts, labels } = await loadLastTrainSteps(db, branchId, FINAL_TRAIN_STEPS);
  const ids = await db.rollout.findMany({ where: { branchId, uid: { in: rollouts.map((r) => r.uid) } }, select: { id: true, uid: true } });
  const recipe = JSON.parse(branch.recipe.canonical) as { algo?: { maxResponseTokens?: number } };
  return {
    runId: branch.runId,
    domain: config.domain,
    harnessVersionId,
    harness,
    successThreshold: config.gate.successThreshold,
    context: recipe.algo?.maxResponseTokens ? { maxResponseTokens: recipe.algo.maxResponseTokens } : {},
    rollouts,
    labels: labels.filter((l) => current.has(`${l.detectorId}@${l.detectorVersion}`)),
    rolloutIds: new Map(ids.map((r) => [r.uid, r.id.toString()])),
  };
}

/** People's verdicts on one label of a branch's rollouts: the reviews a drafted detector's precision is measured against. */
export async function branchLabelVerdicts(db: Database, branchId: string, label: string): Promise<LabelVerdict[]> {
  const rows = await db.rolloutLabel.findMany({
    where: { branchId, label, review: { not: null } },
    select: { review: true, rollout: { select: { uid: true } } },
  });
  return rows.map((r) => ({ rolloutUid: r.rollout.uid, label, present: r.review === "confirmed" }));
}
