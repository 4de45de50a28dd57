import { spawnSync } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

/** The virtual environment `.ci/run` installs CPU torch, transformers and TRL into. */
export const TRL_PYTHON = resolve(".venv-trl/bin/python");

/**
 * Why real TRL cannot run here, or null when it can: the venv's python must import trl. The
 * reason is printed as `REAL-TRAINER TESTS NOT RUN: <reason>` by the test that skips.
 */
export function trlUnavailable(): string | null {
  if (!existsSync(TRL_PYTHON)) return `${TRL_PYTHON} is missing (.ci/run installs it: pip install torch transformers trl)`;
  const probe = spawnSync(TRL_PYTHON, ["-c", "import trl, transformers, torch; print(trl.__version__)"], { encoding: "utf8" });
  return probe.status === 0 ? null : `${TRL_PYTHON} cannot import trl: ${probe.stderr.trim().split("\n").at(-1)}`;
}

/**
 * Arithmetic tasks in the TRL job's dataset format (`task_id`, `prompt`, `answer`), deterministic:
 * `n` sums of two digits, ids prefixed by the split.
 */
export function writeArithmeticTasks(file: string, split: string, n: number, offset = 0): void {
  const lines = Array.from({ length: n }, (_, i) => {
    const a = ((i + offset) * 7) % 9 + 1;
    const b = ((i + offset) * 5) % 9 + 1;
    return JSON.stringify({ task_id: `${split}-${i}`, prompt: `Q: ${a}+${b}=? A:`, answer: String(a + b) });
  });
  writeFileSync(file, `${lines.join("\n")}\n`);
}

/** The tiny arithmetic model's build (scripts/tiny-model/build.py): its SFT model and its three task splits. */
export interface TinyBuild {
  model: string;
  train: string;
  promotion: string;
  sealed: string;
}

/**
 * Builds, or keeps, the SFT tiny model the learning benchmark trains, in `.cache/tiny-model/<size>`:
 * a build whose script and parameters have not changed is reused (the script checks its own key).
 */
export function buildTinyArithmeticModel(size: "full" | "smoke", output: "inherit" | "pipe" = "pipe"): TinyBuild {
  const dir = resolve(".cache/tiny-model", size);
  const built = spawnSync(TRL_PYTHON, [resolve("scripts/tiny-model/build.py"), dir, "--size", size], { encoding: "utf8", stdio: ["ignore", output, output] });
  if (built.status !== 0) throw new Error(`building the tiny model (${size}) failed:\n${built.stderr ?? ""}`);
  return { model: join(dir, "model"), train: join(dir, "train.jsonl"), promotion: join(dir, "promotion.jsonl"), sealed: join(dir, "sealed.jsonl") };
}

/** A 2-layer Qwen2 with random weights and a BPE tokenizer trained on the tasks, built on this machine. */
export function buildTinyModel(dir: string, tasksFile: string): string {
  const out = join(dir, "tiny-qwen2");
  const built = spawnSync(TRL_PYTHON, [resolve("tests/support/python/tiny_model.py"), out, tasksFile], { encoding: "utf8" });
  if (built.status !== 0) throw new Error(`building the tiny model failed:\n${built.stderr}`);
  return out;
}
