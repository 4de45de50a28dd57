import type { Rollout, Split } from "@evotrainer/contract";
import { shortHash } from "../short-hash.ts";

/**
 * One line of verl's rollout dump (`{step}.jsonl` in `trainer.rollout_data_dir` or
 * `validation_data_dir`, written by `RayPPOTrainer._dump_generations`): the decoded prompt and
 * response, the ground truth, the score, the step, plus every reward extra whose list had one value
 * per sample. Training dumps of verl's v1 trainer carry `uid` = `{sample}_{rollout}_{output}` instead.
 */
export interface VerlDumpLine {
  input: string;
  output: string;
  gts?: unknown;
  score: number | null;
  step: number;
  uid?: string;
  [extra: string]: unknown;
}

export interface VerlDumpOptions {
  /** `train` for rollout_data_dir; the evaluated split for validation_data_dir. */
  split: Split;
  /** The step of the file (its name); lines without a usable `step` take it. */
  step: number;
  /** verl's dumps hold no token counts; give a tokenizer-backed count when one is at hand. */
  countTokens?: (text: string) => number;
}

const CORE_KEYS = new Set(["input", "output", "gts", "score", "step", "uid"]);
// The v1 trainer's uid: `{sample}_{rollout}_{output}`, the middle part being the sample's index in its group.
const V1_UID = /^(\d+)_(\d+)_(\d+)$/;

/**
 * Maps a dump's lines to contract rollouts. The uid is stable for the branch (verl's own uid when
 * present, else a hash of step, line index and prompt) and prefixed by split and step, since verl's
 * uids restart every step; the task is the prompt's hash, the group a task at a step. Rows are not
 * validated here: a line verl wrote badly (a null score) is quarantined with its reason at ingest.
 */
export function verlDumpToRollouts(lines: readonly VerlDumpLine[], options: VerlDumpOptions): Rollout[] {
  const seen = new Map<string, number>();
  return lines.map((line, index) => {
    const step = Number.isSafeInteger(line.step) && line.step >= 0 ? line.step : options.step;
    const input = typeof line.input === "string" ? line.input : JSON.stringify(line.input ?? "");
    const output = typeof line.output === "string" ? line.output : JSON.stringify(line.output ?? "");
    const taskId = `verl-${shortHash(input)}`;
    const nth = seen.get(taskId) ?? 0;
    seen.set(taskId, nth + 1);
    const v1 = typeof line.uid === "string" ? V1_UID.exec(line.uid) : null;
    const localId = typeof line.uid === "string" && line.uid !== "" ? line.uid : shortHash(step, index, input);

    const rewardComponents: Record<string, number> = {};
    const extra: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(line)) {
      if (CORE_KEYS.has(key)) continue;
      // Numeric reward extras are the reward's parts (acc, format, overlong penalty); the rest
      // (predictions, strings) are kept as they are.
      if (typeof value === "number" && Number.isFinite(value)) rewardComponents[key] = value;
      else extra[key] = value;
    }
    if (typeof line.uid === "string") extra.verlUid = line.uid;

    const rollout: Rollout = {
      uid: `verl/${options.split}/${step}/${localId}`,
      split: options.split,
      step,
      taskId,
      groupId: `${taskId}@${options.split}/${step}`,
      sample: v1 ? Number(v1[2]) : nth,
      prompt: input,
      response: output,
      // A non-numeric score stays non-numeric so validation names it. NaN (JSON writes it as null)
      // and null are left out, so validation says the reward is missing: verl scores every
      // rollout, and null would read as an unknown result.
      reward: (line.score === null || (typeof line.score === "number" && !Number.isFinite(line.score)) ? undefined : line.score) as number,
      rewardComponents,
      responseTokens: options.countTokens ? options.countTokens(output) : 0,
      turns: 1,
      truncated: false,
      groundTruth: line.gts,
    };
    if (Object.keys(extra).length > 0) rollout.extra = extra;
    return rollout;
  });
}
