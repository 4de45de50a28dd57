import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import type { MetricsLine, Rollout, Split } from "@evotrainer/contract";
import { parsePythonJson } from "../python-json.ts";
import { verlDumpToRollouts, type VerlDumpLine } from "./verl-dump.ts";
import { verlMetricsToContract } from "./verl-metrics.ts";

export interface VerlRunFiles {
  /** `trainer.rollout_data_dir`. */
  rolloutDataDir?: string;
  /** `trainer.validation_data_dir`. */
  validationDataDir?: string;
  /** The file logger's JSONL (`VERL_FILE_LOGGER_PATH`). */
  metricsFile?: string;
}

export interface VerlStepRollouts {
  split: Split;
  step: number;
  rollouts: Rollout[];
  /** Lines that were not JSON objects, with their 1-based line numbers in the dump. */
  unreadable: { lineNumber: number; reason: string }[];
}

const DUMP_FILE = /^(\d+)\.jsonl$/;

function parseLines(text: string): { values: { lineNumber: number; value: unknown }[]; unreadable: VerlStepRollouts["unreadable"] } {
  const values: { lineNumber: number; value: unknown }[] = [];
  const unreadable: VerlStepRollouts["unreadable"] = [];
  text.split("\n").forEach((line, i) => {
    if (line.trim() === "") return;
    try {
      values.push({ lineNumber: i + 1, value: parsePythonJson(line) });
    } catch (error) {
      unreadable.push({ lineNumber: i + 1, reason: (error as Error).message });
    }
  });
  return { values, unreadable };
}

async function readDumpDir(dir: string, split: Split, countTokens?: (text: string) => number): Promise<VerlStepRollouts[]> {
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
    const { values, unreadable } = parseLines(await readFile(join(dir, name), "utf8"));
    const lines: VerlDumpLine[] = [];
    for (const { lineNumber, value } of values) {
      if (typeof value === "object" && value !== null && !Array.isArray(value)) lines.push(value as VerlDumpLine);
      else unreadable.push({ lineNumber, reason: "not a JSON object" });
    }
    out.push({ split, step, rollouts: verlDumpToRollouts(lines, { split, step, ...(countTokens ? { countTokens } : {}) }), unreadable });
  }
  return out;
}

/**
 * Reads a verl run's own outputs (dumps of both directories, the file logger's metrics) as contract
 * rows, step by step: what `evotrainer import verl` and the verl executor's ingest convert.
 * Validation dumps do not say which locked split they evaluated, so the caller names it.
 */
export async function readVerlRun(
  files: VerlRunFiles,
  options: { validationSplit?: Exclude<Split, "train">; countTokens?: (text: string) => number } = {},
): Promise<{ rollouts: VerlStepRollouts[]; metrics: MetricsLine[] }> {
  const rollouts = [
    ...(files.rolloutDataDir ? await readDumpDir(files.rolloutDataDir, "train", options.countTokens) : []),
    ...(files.validationDataDir ? await readDumpDir(files.validationDataDir, options.validationSplit ?? "promotion", options.countTokens) : []),
  ];
  let metrics: MetricsLine[] = [];
  if (files.metricsFile) {
    const text = await readFile(files.metricsFile, "utf8").catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return "";
      throw error;
    });
    metrics = verlMetricsToContract(parseLines(text).values.map((v) => v.value));
  }
  return { rollouts, metrics };
}
