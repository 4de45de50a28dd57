import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { MetricsLine, Rollout } from "@evotrainer/contract";
import { parsePythonJson } from "../python-json.ts";
import { firstFile, matchingNames } from "../run-dir-entries.ts";
import { readTrlCompletions, type TrlCompletionsOptions } from "./trl-completions.ts";
import { trlLogHistoryToContract } from "./trl-metrics.ts";

export interface TrlRunFiles {
  /** `completions/` under GRPOConfig's output_dir, written with log_completions=True. */
  completionsDir: string;
  /** The Trainer's state, whose `log_history` holds the logged metrics. */
  trainerStateFile?: string;
}

const COMPLETIONS = /^completions_\d+\.parquet$/;
const CHECKPOINT = /^checkpoint-(\d+)$/;

/**
 * Finds a TRL run's outputs in `dir` (GRPOConfig's output_dir, or the job's output dir whose `trl/`
 * is that): the completions parquet files, and `trainer_state.json`, at the top when the script
 * saved it or else in the latest `checkpoint-N/`. Throws, naming what was expected, without them.
 */
export async function trlRunLayout(dir: string): Promise<TrlRunFiles> {
  let completionsDir: string | undefined;
  for (const candidate of [join(dir, "completions"), join(dir, "trl", "completions")]) {
    if ((await matchingNames(candidate, COMPLETIONS)).length > 0) {
      completionsDir = candidate;
      break;
    }
  }
  if (!completionsDir) {
    throw new Error(
      `${dir} is not a TRL GRPO output directory: expected completions_{step:05d}.parquet files (GRPOConfig log_completions=True) ` +
        `in ${join(dir, "completions")}/ or ${join(dir, "trl", "completions")}/; optionally trainer_state.json or checkpoint-*/trainer_state.json for metrics`,
    );
  }
  const root = dirname(completionsDir);
  const checkpoints = (await matchingNames(root, CHECKPOINT)).sort((a, b) => Number(CHECKPOINT.exec(b)![1]) - Number(CHECKPOINT.exec(a)![1]));
  const trainerStateFile = await firstFile([join(root, "trainer_state.json"), ...checkpoints.map((c) => join(root, c, "trainer_state.json"))]);
  return { completionsDir, ...(trainerStateFile ? { trainerStateFile } : {}) };
}

/** A TRL run's completions as contract rollouts (step by step) and its log history as metrics lines. */
export async function readTrlRun(
  files: TrlRunFiles,
  options: Omit<TrlCompletionsOptions, "step"> = {},
): Promise<{ steps: { step: number; file: string; rollouts: Rollout[]; duplicates: number }[]; metrics: MetricsLine[] }> {
  const steps = await readTrlCompletions(files.completionsDir, options);
  let metrics: MetricsLine[] = [];
  if (files.trainerStateFile) {
    const state = parsePythonJson(await readFile(files.trainerStateFile, "utf8")) as { log_history?: unknown };
    metrics = trlLogHistoryToContract(Array.isArray(state.log_history) ? state.log_history : []);
  }
  return { steps, metrics };
}
