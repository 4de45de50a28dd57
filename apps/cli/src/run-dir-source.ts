import { readTrlRun, readVerlRun, trlRunLayout, verlRunLayout } from "@evotrainer/adapters";
import type { MetricsLine, Rollout } from "@evotrainer/contract";

/** One file of a trainer's run directory as contract rows, each at its line (or row) in that file. */
export interface RunDirFile {
  /** The file's absolute path: what its rows are quarantined and listed under. */
  source: string;
  rows: { lineNumber: number; rollout: Rollout }[];
  unreadable: { lineNumber: number; reason: string; raw: string }[];
}

export interface RunDirSource {
  /** The trainer files found, by role, for the report of what was read. */
  found: Record<string, string>;
  files: RunDirFile[];
  metrics: MetricsLine[];
  /** TRL rows dropped because their file logged the previous generation batch again. */
  repeatedRows: number;
}

export interface RunDirOptions {
  /** The locked split verl's validation dumps (and TRL's eval rows) evaluated. */
  validationSplit: "promotion" | "sealed";
  /** TRL's reward_weights per reward function (1 for any not named, as TRL defaults them). */
  rewardWeights?: Record<string, number>;
}

/** Reads a verl or TRL run directory with the adapters' readers; throws, naming the expected files, when it is neither. */
export async function readRunDir(adapter: "verl" | "trl", dir: string, options: RunDirOptions): Promise<RunDirSource> {
  if (adapter === "verl") {
    const layout = await verlRunLayout(dir);
    const run = await readVerlRun(layout, { validationSplit: options.validationSplit });
    return {
      found: { ...layout },
      files: run.rollouts.map((step) => ({
        source: step.file,
        rows: step.rollouts.map((rollout, i) => ({ lineNumber: step.lineNumbers[i]!, rollout })),
        unreadable: step.unreadable,
      })),
      metrics: run.metrics,
      repeatedRows: 0,
    };
  }
  const layout = await trlRunLayout(dir);
  const run = await readTrlRun(layout, { evalSplit: options.validationSplit, ...(options.rewardWeights ? { rewardWeights: options.rewardWeights } : {}) });
  return {
    found: { ...layout },
    // A parquet row's "line" is its 1-based row number.
    files: run.steps.map((step) => ({ source: step.file, rows: step.rollouts.map((rollout, i) => ({ lineNumber: i + 1, rollout })), unreadable: [] })),
    metrics: run.metrics,
    repeatedRows: run.steps.reduce((n, step) => n + step.duplicates, 0),
  };
}
