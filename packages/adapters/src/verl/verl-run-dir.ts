import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import type { MetricsLine, Rollout, Split } from "@evotrainer/contract";
import { parsePythonJson } from "../python-json.ts";
import { verlDumpToRollouts, type VerlDumpLine } from "./verl-dump.ts";
import { verlMetricsToContract } from "./verl-metrics.ts";
import { verlRewardRecords, withRewardComponents, type VerlRewardRecord } from "./verl-reward-components.ts";

export interface VerlRunFiles {
  /** `trainer.rollout_data_dir`. */
  rolloutDataDir?: string;
  /** `trainer.validation_data_dir`. */
  validationDataDir?: string;
  /** The file logger's JSONL (`VERL_FILE_LOGGER_PATH`). */
  metricsFile?: string;
  /** The reward wrapper's side file: components the v1 trainer's training dumps leave out. */
  rewardComponentsFile?: string;
}

export interface VerlStepRollouts {
  split: Split;
  step: number;
  /** The dump these rows come from. */
  file: string;
  rollouts: Rollout[];
  /** The 1-based line of each rollout in the dump, in the same order. */
  lineNumbers: number[];
  /** Lines that were not JSON objects, with their line numbers and text. */
  unreadable: { lineNumber: number; reason: string; raw: string }[];
}

const DUMP_FILE = /^(\d+)\.jsonl$/;

interface ParsedLines {
  values: { lineNumber: number; value: unknown }[];
  unreadable: VerlStepRollouts["unreadable"];
}

function parseLines(text: string): ParsedLines {
  const values: ParsedLines["values"] = [];
  const unreadable: ParsedLines["unreadable"] = [];
  // A last line without its newline is still being written (verl writes "line\n" at a time): it is
  // left for the next read rather than reported as broken.
  const lines = text.split("\n").slice(0, -1);
  lines.forEach((line, i) => {
    if (line.trim() === "") return;
    try {
      values.push({ lineNumber: i + 1, value: parsePythonJson(line) });
    } catch (error) {
      unreadable.push({ lineNumber: i + 1, reason: (error as Error).message, raw: line });
    }
  });
  return { values, unreadable };
}

async function readIfPresent(file: string): Promise<string> {
  return readFile(file, "utf8").catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return "";
    throw error;
  });
}

interface DumpOptions {
  split: Split;
  records: readonly VerlRewardRecord[];
  countTokens?: (text: string) => number;
}

async function readDumpDir(dir: string, options: DumpOptions): Promise<VerlStepRollouts[]> {
  const names = await readdir(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return [] as string[];
    throw error;
  });
  const files = names.flatMap((name) => {
    const match = DUMP_FILE.exec(name);
    return match ? [{ name, step: Number(match[1]) }] : [];
  });
  files.sort((a, b) => a.step - b.step);
  const out: VerlStepRollouts[] = [];
  for (const { name, step } of files) {
    const file = join(dir, name);
    const { values, unreadable } = parseLines(await readIfPresent(file));
    const lines: VerlDumpLine[] = [];
    const lineNumbers: number[] = [];
    for (const { lineNumber, value } of values) {
      if (typeof value === "object" && value !== null && !Array.isArray(value)) {
        lines.push(value as VerlDumpLine);
        lineNumbers.push(lineNumber);
      } else {
        unreadable.push({ lineNumber, reason: "not a JSON object", raw: JSON.stringify(value) });
      }
    }
    const rollouts = verlDumpToRollouts(lines, { split: options.split, step, ...(options.countTokens ? { countTokens: options.countTokens } : {}) });
    out.push({ split: options.split, step, file, rollouts: withRewardComponents(rollouts, options.records), lineNumbers, unreadable });
  }
  return out;
}

/**
 * Reads a verl run's own outputs (dumps of both directories, the file logger's metrics, the reward
 * wrapper's side file) as contract rows, step by step: what `evotrainer import verl` and the verl
 * executor's ingest convert. Validation dumps do not say which locked split they evaluated, so the
 * caller names it.
 */
export async function readVerlRun(
  files: VerlRunFiles,
  options: { validationSplit?: Exclude<Split, "train">; countTokens?: (text: string) => number } = {},
): Promise<{ rollouts: VerlStepRollouts[]; metrics: MetricsLine[] }> {
  const records = files.rewardComponentsFile ? verlRewardRecords(parseLines(await readIfPresent(files.rewardComponentsFile)).values.map((v) => v.value)) : [];
  const read = (dir: string, split: Split) => readDumpDir(dir, { split, records, ...(options.countTokens ? { countTokens: options.countTokens } : {}) });
  const rollouts = [
    ...(files.rolloutDataDir ? await read(files.rolloutDataDir, "train") : []),
    ...(files.validationDataDir ? await read(files.validationDataDir, options.validationSplit ?? "promotion") : []),
  ];
  const metrics = files.metricsFile ? verlMetricsToContract(parseLines(await readIfPresent(files.metricsFile)).values.map((v) => v.value)) : [];
  return { rollouts, metrics };
}
