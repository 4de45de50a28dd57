import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { classifyExit, jobSchema, readCheckpoint, readEval, readHeartbeat, readStatus } from "@evotrainer/contract";
import { defaultRecipe } from "@evotrainer/core";
import { trlAdapter } from "../trl/trl-adapter.ts";

const here = fileURLToPath(new URL(".", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "evo-job-py-"));

/** Runs `body(files)` under evo_job.run_job in a fresh output dir; returns the exit code and that dir. */
function runBody(name: string, body: string, attempt?: number): { code: number | null; outputDir: string; stderr: string } {
  const outputDir = join(dir, name);
  const script = `import sys, evo_job\nfrom evo_job import *\ndef body(files):\n${body.replace(/^/gm, "    ")}\nevo_job.run_job(sys.argv[1], body${attempt === undefined ? "" : `, ${attempt}`})\n`;
  const done = spawnSync("python3", ["-c", script, outputDir], { env: { ...process.env, PYTHONPATH: here }, encoding: "utf8" });
  return { code: done.status, outputDir, stderr: done.stderr };
}

describe("evo_job.py: how a wrapped trainer's end becomes the contract's exit class", () => {
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each([
    ["a clean end", "files.last_step = 3", 0, { state: "succeeded", exitCode: 0, lastStep: 3 }],
    ["a configuration the trainer refused", "raise ConfigError('GRPOConfig refused: generation_batch_size (8) must be divisible by num_generations (16)')", 2, { state: "failed", failureClass: "config_error", message: expect.stringContaining("num_generations (16)") }],
    ["a broken reward function", "raise DataError('reward component correctness failed: KeyError')", 3, { state: "failed", failureClass: "data_error" }],
    ["an out-of-memory error", "raise MemoryError('CUDA out of memory')", 1, { state: "failed", failureClass: "oom" }],
    ["any other exception", "files.last_step = 2\nraise RuntimeError('boom')", 1, { state: "failed", failureClass: "crash", lastStep: 2, message: "RuntimeError: boom" }],
    ["SIGTERM (a drain, a cancelled pod)", "import os, signal\nos.kill(os.getpid(), signal.SIGTERM)", 75, { state: "failed", failureClass: "preempted", exitCode: 75 }],
  ])("%s", async (_name, body, code, status) => {
    const run = runBody(_name.replace(/\W+/g, "-"), body);
    expect(run.code, run.stderr).toBe(code);
    // status.json passes the contract's own reader, which checks the code agrees with the class.
    expect(await readStatus(run.outputDir)).toMatchObject(status);
    expect(classifyExit(code).retriable).toBe(code !== 0 && code !== 2 && code !== 3);
  });

  it("writes the contract's files, non-finite numbers as null", async () => {
    const run = runBody("files", [
      "files.heartbeat(1, 'update', 0.5)",
      "files.metrics(1, {'loss': float('nan'), 'kl': 0.01, 'flag': True, 'name': 'x'})",
      "files.checkpoint(1, 'trl/final')",
      "files.eval_result(1, {'promotion': {'score': 0.5, 'tasks': [{'taskId': 't', 'samples': 2, 'meanReward': 0.5, 'passRate': 0.5}]}})",
    ].join("\n"));
    expect(run.code, run.stderr).toBe(0);
    // The last beat marks the end of the attempt on its own clock, from the same start as every beat.
    const beat = (await readHeartbeat(run.outputDir))!;
    expect(beat).toMatchObject({ step: 1, phase: "teardown", progress: 0.5, startedAt: expect.any(String) });
    expect(Date.parse(beat.time)).toBeGreaterThanOrEqual(Date.parse(beat.startedAt!));
    expect(await readCheckpoint(run.outputDir)).toMatchObject({ step: 1, path: "trl/final" });
    expect((await readEval(run.outputDir, 1))?.splits.promotion?.score).toBe(0.5);
    expect(JSON.parse(readFileSync(join(run.outputDir, "metrics.jsonl"), "utf8"))).toEqual({ step: 1, data: { loss: null, kl: 0.01 } });
  });
});

describe("evo_job.py: the attempt on every line", () => {
  it("stamps job.json's attempt on rollout and metrics lines, so a retry's lines replace the crashed attempt's", () => {
    const run = runBody("attempt", [
      "files.rollouts('eval', 1, [{'uid': 'e', 'split': 'promotion', 'step': 1}])",
      "files.append_rollouts('train', 1, [{'uid': 't', 'split': 'train', 'step': 1}])",
      "files.metrics(1, {'loss': 0.5})",
    ].join("\n"), 2);
    expect(run.code, run.stderr).toBe(0);
    const first = (file: string) => JSON.parse(readFileSync(join(run.outputDir, file), "utf8").split("\n")[0]!) as { attempt?: number };
    expect([first("rollouts/eval/step_1.jsonl").attempt, first("rollouts/train/step_1.jsonl").attempt, first("metrics.jsonl").attempt]).toEqual([2, 2, 2]);
  });
});

describe("evo_job.py: a step's rollouts appended, generation by generation", () => {
  it("keeps every batch appended to a step's file, and clear() removes an earlier attempt's", () => {
    const row = (uid: string) => `{'uid': '${uid}', 'split': 'train', 'step': 1}`;
    const run = runBody("append", [
      `files.append_rollouts('train', 1, [${row("a")}, ${row("b")}])`,
      `files.append_rollouts('train', 1, [${row("c")}])`,
      `files.append_rollouts('train', 2, [${row("d")}])`,
      "files.clear('rollouts', 'train', 'step_2.jsonl')",
    ].join("\n"));
    expect(run.code, run.stderr).toBe(0);
    const lines = readFileSync(join(run.outputDir, "rollouts", "train", "step_1.jsonl"), "utf8").trim().split("\n");
    expect(lines.map((line) => (JSON.parse(line) as { uid: string }).uid)).toEqual(["a", "b", "c"]);
    expect(existsSync(join(run.outputDir, "rollouts", "train", "step_2.jsonl"))).toBe(false);
  });
});

describe("evo_trl_job.py", () => {
  it("refuses an unknown grader as a configuration error before it loads TRL", async () => {
    const workDir = join(dir, "trl-grader");
    mkdirSync(workDir, { recursive: true });
    const split = { dataset: "/data/promotion.jsonl", samplesPerTask: 2, temperature: 0.7, maxResponseTokens: 8, grader: "llm_judge" };
    const job = jobSchema.parse({
      contract: "evo.job/v1", runId: "r", branchId: "b", jobId: "j", kind: "train", domain: "math", policy: { base: "/models/tiny" },
      recipe: defaultRecipe(), evaluation: { promotion: split, sealed: split, seed: 7 },
      budget: { maxSeconds: 60, maxSteps: 2, gpuCount: 0 }, seed: 1, outputDir: join(workDir, "output"), adapter: { dataset: "/data/train.jsonl" },
    });
    const rendered = trlAdapter().render(job);
    for (const [file, text] of Object.entries(rendered.files)) writeFileSync(join(workDir, file), text);
    // This machine's system python3 has no TRL: reaching the import would crash (exit 1), not exit 2.
    const done = spawnSync(rendered.command[0]!, rendered.command.slice(1), { cwd: workDir, encoding: "utf8" });
    expect(done.status, done.stderr).toBe(2);
    expect(await readStatus(job.outputDir)).toMatchObject({ state: "failed", failureClass: "config_error", message: expect.stringContaining("grader llm_judge") });
  });
});
