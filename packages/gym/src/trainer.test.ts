import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readCheckpoint, readEval, readStatus, writeJob, type JobInput } from "@evotrainer/contract";
import { afterAll, describe, expect, it } from "vitest";
import { runGymJob } from "./trainer.ts";
import { gymJob } from "./test-job.ts";

const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

async function jobIn(name: string, make: (out: string) => JobInput): Promise<{ jobFile: string; out: string }> {
  const dir = await mkdtemp(join(tmpdir(), `gym-${name}-`));
  dirs.push(dir);
  const out = join(dir, "out");
  const jobFile = join(dir, "job.json");
  await writeJob(jobFile, make(out));
  return { jobFile, out };
}

async function latestPolicy(out: string): Promise<unknown> {
  const pointer = await readCheckpoint(out);
  return JSON.parse(await readFile(join(out, pointer!.path), "utf8"));
}

describe("runGymJob", () => {
  it("stops with 75 when preempted and, rerun, resumes to exactly the uninterrupted result", async () => {
    const whole = await jobIn("whole", (out) => gymJob(out));
    expect((await runGymJob(whole.jobFile)).exitCode).toBe(0);

    const cut = await jobIn("cut", (out) => gymJob(out));
    const preempt = new AbortController();
    const first = await runGymJob(cut.jobFile, {
      signal: preempt.signal,
      log: (line) => {
        if (line.startsWith("step 2/")) preempt.abort();
      },
    });
    expect(first.exitCode).toBe(75);
    expect(first.status).toMatchObject({ state: "failed", failureClass: "preempted", lastStep: 2 });
    expect((await runGymJob(cut.jobFile)).exitCode).toBe(0);

    expect(await latestPolicy(cut.out)).toEqual(await latestPolicy(whole.out));
    expect(await readEval(cut.out, 6)).toEqual(await readEval(whole.out, 6));
    expect(await readFile(join(cut.out, "rollouts/train/step_5.jsonl"), "utf8")).toBe(await readFile(join(whole.out, "rollouts/train/step_5.jsonl"), "utf8"));
  }, 20_000);

  it("starts a child branch from its parent's checkpoint, and evaluates a checkpoint on its own", async () => {
    const parent = await jobIn("parent", (out) => gymJob(out));
    await runGymJob(parent.jobFile);
    const evalJob = await jobIn("eval", (out) => ({ ...gymJob(out), kind: "eval", policy: { base: "gym:swe", checkpoint: parent.out } }));
    expect((await runGymJob(evalJob.jobFile)).exitCode).toBe(0);
    // Same checkpoint, same locked draws: the same scores as the parent's own final evaluation.
    expect(await readEval(evalJob.out, 6)).toEqual(await readEval(parent.out, 6));

    const fresh = await jobIn("fresh", (out) => ({ ...gymJob(out), budget: { maxSeconds: 60, maxSteps: 1, gpuCount: 0 } }));
    const child = await jobIn("child", (out) => ({
      ...gymJob(out),
      policy: { base: "gym:swe", checkpoint: join(parent.out, "checkpoints", "latest.json") },
      budget: { maxSeconds: 60, maxSteps: 1, gpuCount: 0 },
    }));
    await runGymJob(fresh.jobFile);
    await runGymJob(child.jobFile);
    // The parent learned to tamper with tests; a child that started from it trains on with that habit.
    const tampering = (p: unknown) => (p as { logits: Record<string, number> }).logits["edit_tests"]!;
    expect(tampering(await latestPolicy(child.out))).toBeGreaterThan(tampering(await latestPolicy(fresh.out)) + 0.3);
  }, 20_000);

  it("exits 3 when the parent checkpoint is missing, and 2 for what the gym cannot train", async () => {
    const orphan = await jobIn("orphan", (out) => ({ ...gymJob(out), policy: { base: "gym:swe", checkpoint: "/nonexistent/branch" } }));
    expect((await runGymJob(orphan.jobFile)).exitCode).toBe(3);
    expect(await readStatus(orphan.out)).toMatchObject({ failureClass: "data_error", exitCode: 3 });

    const cases: ((job: JobInput) => JobInput)[] = [
      (job) => ({ ...job, domain: "custom" }),
      (job) => ({ ...job, policy: { base: "Qwen/Qwen2.5-7B" } }),
      (job) => ({ ...job, recipe: { ...job.recipe, algo: { ...(job.recipe["algo"] as object), estimator: "gae" } } }),
      (job) => ({ ...job, recipe: { ...job.recipe, algo: { ...(job.recipe["algo"] as object), lr: -1 } } }),
      (job) => ({ ...job, adapter: { tasksPerStep: 0 } }),
      (job) => ({ ...job, evaluation: { ...job.evaluation, promotion: { ...job.evaluation.promotion, dataset: "gym:math/promotion" } } }),
    ];
    for (const change of cases) {
      const bad = await jobIn("bad", (out) => change(gymJob(out)));
      const result = await runGymJob(bad.jobFile);
      expect(result.exitCode).toBe(2);
      expect(result.status).toMatchObject({ state: "failed", failureClass: "config_error" });
    }
    expect((await runGymJob("/nonexistent/job.json")).exitCode).toBe(2);
  }, 20_000);
});
