import { compileHarness, FINAL_TRAIN_STEPS, runConfigOf, type Domain, type Harness, type Label, type LabelVerdict, type RolloutContext } from "@evotrainer/core";
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
  /**
   * Labels of this harness version's detectors only (an older rule's label explains nothing now): as
   * stored at ingest, plus those of detectors added to the harness since, computed here.
   */
  labels: Label[];
  /** Detectors the branch was not labelled with at ingest, whose labels were computed here. */
  labelledNow: string[];
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
  const context: RolloutContext = recipe.algo?.maxResponseTokens ? { maxResponseTokens: recipe.algo.maxResponseTokens } : {};
  const ingestedWith = await ingestHarnessDetectors(db, branch.runId, branchId);
  const added = harness.detectors.filter((d) => !ingestedWith.has(`${d.id}@${d.version}`));
  let computed: Label[] = [];
  if (added.length > 0) {
    const compiled = compileHarness({ ...harness, detectors: added });
    if (!compiled.ok) throw new Error(`the run's harness does not compile: ${compiled.rejections.map((r) => r.message).join("; ")}`);
    computed = compiled.harness.label(rollouts, config.domain, context).labels;
  }
  return {
    runId: branch.runId,
    domain: config.domain,
    harnessVersionId,
    harness,
    successThreshold: config.gate.successThreshold,
    context,
    rollouts,
    labels: [...labels.filter((l) => current.has(`${l.detectorId}@${l.detectorVersion}`)), ...computed],
    labelledNow: added.map((d) => d.id),
    rolloutIds: new Map(ids.map((r) => [r.uid, r.id.toString()])),
  };
}

/**
 * The detectors (key@version) of the harness version that labelled the branch's rollouts at ingest:
 * the run's newest version created before its first rollout arrived.
 */
async function ingestHarnessDetectors(db: Database, runId: string, branchId: string): Promise<Set<string>> {
  const first = await db.rollout.findFirst({ where: { branchId }, orderBy: { id: "asc" }, select: { createdAt: true } });
  const version = first
    ? await db.harnessVersion.findFirst({
        where: { runId, createdAt: { lte: first.createdAt } },
        orderBy: { createdAt: "desc" },
        select: { detectors: { select: { detector: { select: { key: true, version: true } } } } },
      })
    : null;
  return new Set((version?.detectors ?? []).map(({ detector: d }) => `${d.key}@${d.version}`));
}

/**
 * People's verdicts on one label of a branch's rollouts: the reviews a drafted detector's precision is
 * measured against. Read from the reviews themselves, not the labels they mirror onto, so a label no
 * detector has put on a rollout yet (a reviewer's "missed") counts too; a later review of a rollout
 * replaces an earlier one.
 */
export async function branchLabelVerdicts(db: Database, branchId: string, label: string): Promise<LabelVerdict[]> {
  const rows = await db.review.findMany({ where: { branchId, label }, orderBy: { id: "asc" }, select: { verdict: true, rollout: { select: { uid: true } } } });
  const latest = new Map(rows.map((r) => [r.rollout.uid, r.verdict]));
  return [...latest].map(([rolloutUid, verdict]) => ({ rolloutUid, label, present: verdict !== "rejected" }));
}
