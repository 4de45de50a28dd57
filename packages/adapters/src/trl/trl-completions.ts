import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { asyncBufferFromFile, parquetReadObjects } from "hyparquet";
import type { Rollout, Split } from "@evotrainer/contract";
import { shortHash } from "../short-hash.ts";

/**
 * One row of TRL's completions table. GRPOTrainer.log (huggingface/trl, trl/trainer/grpo_trainer.py)
 * builds it as `{"step": [str(global_step)] * n, "prompt": …, "completion": …, **self._logs["rewards"],
 * "advantage": …}`, one column per reward function (named after it), and with `log_completions=True`
 * writes it with pandas to `completions/completions_{global_step:05d}.parquet`. Some versions write
 * `step` as an integer and add a `mode` (train/eval) column and extra logged columns.
 */
export type TrlCompletionRow = Record<string, unknown> & { prompt?: unknown; completion?: unknown; step?: unknown; advantage?: unknown };

export interface TrlCompletionsOptions {
  /** The step of the file (its name), for rows whose `step` cannot be read. */
  step: number;
  /** Split of rows without `mode` (or with mode "train"); eval rows get `evalSplit`. */
  evalSplit?: Exclude<Split, "train">;
  /** reward_weights per reward function; 1 for any not named, as TRL defaults them. */
  rewardWeights?: Record<string, number>;
  countTokens?: (text: string) => number;
}

const KNOWN = new Set(["step", "prompt", "completion", "advantage", "mode", "image", "images"]);

const text = (value: unknown): string => (typeof value === "string" ? value : JSON.stringify(value ?? ""));
const asNumber = (value: unknown): number | null =>
  typeof value === "bigint" ? Number(value) : typeof value === "number" && Number.isFinite(value) ? value : null;

/** A row's identity within its file: its content and which repeat of that content it is. */
export function trlRowKey(row: TrlCompletionRow, nth: number): string {
  const columns = Object.keys(row).filter((k) => k !== "step" && k !== "image" && k !== "images").sort();
  return shortHash(...columns.flatMap((k) => [k, text(typeof row[k] === "bigint" ? Number(row[k]) : row[k])]), nth);
}

/**
 * Maps the rows of one completions file to contract rollouts: reward = the weighted sum of the reward
 * columns that are numbers (TRL's nansum; a reward function may return None), each column a reward
 * component, the advantage kept in `extra`. uid = step + the row's content key, so the same row read
 * again maps to the same uid.
 */
export function trlCompletionsToRollouts(rows: readonly TrlCompletionRow[], options: TrlCompletionsOptions): Rollout[] {
  const nthOfKey = new Map<string, number>();
  const nthOfTask = new Map<string, number>();
  return rows.map((row) => {
    const parsedStep = Number(typeof row.step === "bigint" ? Number(row.step) : row.step);
    const step = Number.isSafeInteger(parsedStep) && parsedStep >= 0 ? parsedStep : options.step;
    const split: Split = row.mode === "eval" ? (options.evalSplit ?? "promotion") : "train";
    const prompt = text(row.prompt);
    const completion = text(row.completion);
    const taskId = `trl-${shortHash(prompt)}`;
    const sample = nthOfTask.get(`${split}/${step}/${taskId}`) ?? 0;
    nthOfTask.set(`${split}/${step}/${taskId}`, sample + 1);
    const base = trlRowKey(row, 0);
    const nth = nthOfKey.get(base) ?? 0;
    nthOfKey.set(base, nth + 1);

    const rewardComponents: Record<string, number> = {};
    const extra: Record<string, unknown> = {};
    let reward = 0;
    for (const [key, value] of Object.entries(row)) {
      if (KNOWN.has(key)) continue;
      const n = asNumber(value);
      if (n !== null) {
        rewardComponents[key] = n;
        reward += n * (options.rewardWeights?.[key] ?? 1);
      } else extra[key] = typeof value === "bigint" ? Number(value) : value;
    }
    const advantage = asNumber(row.advantage);
    if (advantage !== null) extra.advantage = advantage;

    const rollout: Rollout = {
      uid: `trl/${split}/${step}/${trlRowKey(row, nth)}`,
      split,
      step,
      taskId,
      groupId: `${taskId}@${split}/${step}`,
      sample,
      prompt,
      response: completion,
      reward,
      rewardComponents,
      responseTokens: options.countTokens ? options.countTokens(completion) : 0,
      turns: 1,
      truncated: false,
    };
    if (Object.keys(extra).length > 0) rollout.extra = extra;
    return rollout;
  });
}

const COMPLETIONS_FILE = /^completions_(\d+)\.parquet$/;

/**
 * Reads every `completions_{step:05d}.parquet` in `dir`, in step order, as contract rollouts.
 * TRL logs the generation batch it holds (`_logs` keeps the last generation batch), so when a batch
 * is trained on over several steps each of those steps writes the same rows again. A file whose
 * rows all appeared in the previous file is such a repeat and is dropped as a whole; rows are not
 * dropped one by one, because two generations can produce an identical short answer with identical
 * rewards and advantage, and both are real rollouts.
 */
export async function readTrlCompletions(
  dir: string,
  options: Omit<TrlCompletionsOptions, "step"> = {},
): Promise<{ step: number; file: string; rollouts: Rollout[]; duplicates: number }[]> {
  const names = await readdir(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return [] as string[];
    throw error;
  });
  const files = names.flatMap((name) => {
    const match = COMPLETIONS_FILE.exec(name);
    return match ? [{ name, step: Number(match[1]) }] : [];
  });
  files.sort((a, b) => a.step - b.step);
  let previous = new Set<string>();
  const out: { step: number; file: string; rollouts: Rollout[]; duplicates: number }[] = [];
  for (const { name, step } of files) {
    const file = join(dir, name);
    const rows = (await parquetReadObjects({ file: await asyncBufferFromFile(file) })) as TrlCompletionRow[];
    const nth = new Map<string, number>();
    const keys = rows.map((row) => {
      const base = trlRowKey(row, 0);
      const n = nth.get(base) ?? 0;
      nth.set(base, n + 1);
      return trlRowKey(row, n);
    });
    const repeat = rows.length > 0 && keys.every((key) => previous.has(key));
    out.push({ step, file, rollouts: repeat ? [] : trlCompletionsToRollouts(rows, { ...options, step }), duplicates: repeat ? rows.length : 0 });
    if (!repeat) previous = new Set(keys);
  }
  return out;
}
