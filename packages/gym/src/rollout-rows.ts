import type { appendRollouts, Split } from "@evotrainer/contract";
import type { Sample } from "./sampling.ts";

export type RolloutRow = Parameters<typeof appendRollouts>[3][number];

/**
 * A rollout as the contract's row. The uid names the split, step, task, group slot and sample, so
 * the same rollout always gets the same uid within a branch and re-ingest is idempotent. The
 * behaviour the policy chose is not logged: detectors must find it in the text, as with a real model.
 */
export function rolloutRow(split: Split, step: number, groupId: string, sample: Sample): RolloutRow {
  const e = sample.episode;
  return {
    uid: `${groupId}-${sample.index}`,
    split,
    step,
    taskId: sample.task.id,
    groupId,
    sample: sample.index,
    prompt: sample.task.prompt,
    ...(e.response !== undefined ? { response: e.response } : {}),
    ...(e.trajectory !== undefined ? { trajectory: e.trajectory } : {}),
    // The recipe's reward (verl's score); a KL penalty folded into the reward is the trainer's business.
    reward: sample.score,
    rewardComponents: e.components,
    responseTokens: e.responseTokens,
    turns: e.turns,
    finishReason: e.finishReason,
    truncated: e.truncated,
    groundTruth: sample.task.groundTruth,
    ...(e.testResults !== undefined ? { testResults: e.testResults } : {}),
    ...(e.extra !== undefined ? { extra: e.extra } : {}),
  };
}
