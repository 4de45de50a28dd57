import { posix } from "node:path";

/**
 * Where verl writes its own outputs inside a job's output dir, next to (not inside) the contract's
 * files: its dumps are converted into `rollouts/{train,eval}/step_{N}.jsonl`, while its file logger
 * already writes the contract's `metrics.jsonl` shape and so writes that file directly. The reward
 * wrapper's side file holds the reward components verl's v1 trainer leaves out of its dumps.
 */
export function verlPaths(outputDir: string) {
  return {
    rolloutDataDir: posix.join(outputDir, "verl", "rollouts"),
    validationDataDir: posix.join(outputDir, "verl", "validation"),
    checkpointsDir: posix.join(outputDir, "verl", "checkpoints"),
    rewardComponentsFile: posix.join(outputDir, "verl", "reward_components.jsonl"),
  };
}
