import type { Label } from "@evotrainer/core";
import type { Rollout } from "@evotrainer/contract";
import type { Split } from "../generated/prisma/client.ts";
import type { Tx } from "./events.ts";
import { detectorOf, labelDetectors } from "./label-detectors.ts";

/**
 * A branch's stored rollouts of one split in the contract's shape, with their labels in core's.
 * Text that was not kept comes back empty; the labels computed at ingest stand in for it.
 */
export async function loadBranchRollouts(
  db: Tx,
  branchId: string,
  split: Split,
  fromStep = 0,
): Promise<{ rollouts: Rollout[]; labels: Label[] }> {
  const rows = await db.rollout.findMany({
    where: { branchId, split, step: { gte: fromStep } },
    orderBy: [{ step: "asc" }, { groupId: "asc" }, { sample: "asc" }],
    include: { labels: true },
  });
  const detectors = await labelDetectors(db, rows.flatMap((row) => row.labels));
  const rollouts: Rollout[] = [];
  const labels: Label[] = [];
  for (const row of rows) {
    rollouts.push({
      uid: row.uid,
      split: row.split,
      step: row.step,
      taskId: row.taskId,
      groupId: row.groupId,
      sample: row.sample,
      prompt: row.prompt ?? "",
      response: row.response ?? (row.trajectory ? undefined : ""),
      trajectory: (row.trajectory ?? undefined) as Rollout["trajectory"],
      reward: row.reward,
      rewardComponents: row.rewardComponents as Record<string, number>,
      responseTokens: row.responseTokens,
      turns: row.turns,
      finishReason: row.finishReason ?? undefined,
      truncated: row.truncated,
      groundTruth: row.groundTruth ?? undefined,
      testResults: (row.testResults ?? undefined) as Rollout["testResults"],
      extra: (row.extra ?? undefined) as Rollout["extra"],
      advantage: row.advantage ?? undefined,
      tokens: (row.tokens ?? undefined) as Rollout["tokens"],
    });
    for (const l of row.labels) {
      const detector = detectorOf(detectors, l);
      labels.push({
        rolloutUid: row.uid,
        label: l.label,
        detectorId: detector.key,
        detectorVersion: detector.version,
        validity: detector.validity,
        evidence: l.evidence,
      });
    }
  }
  return { rollouts, labels };
}

/** A branch's rollouts of its last `steps` training steps: how it behaves at the end of its training. */
export async function loadLastTrainSteps(db: Tx, branchId: string, steps: number): Promise<{ rollouts: Rollout[]; labels: Label[] }> {
  const last = (await db.rollout.aggregate({ where: { branchId, split: "train" }, _max: { step: true } }))._max.step ?? 0;
  return loadBranchRollouts(db, branchId, "train", Math.max(0, last - steps + 1));
}
