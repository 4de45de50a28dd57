import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import { parse } from "yaml";
import { trlAdapter, verlAdapter, type TrainerAdapter } from "@evotrainer/adapters";
import type { Job } from "@evotrainer/contract";
import { runConfigSchema } from "@evotrainer/core";
import { createRun } from "@evotrainer/db";
import { ExecutorPool } from "../../apps/worker/src/executors/executor-pool.ts";
import { dispatch } from "../../apps/worker/src/loop/dispatch.ts";
import { monitor } from "../../apps/worker/src/loop/monitor.ts";
import { loopHarness } from "../support/loop-harness.ts";
import { until } from "../support/until.ts";

// A trainer whose retry is not deterministic (as on a GPU, or with vLLM): each attempt writes the
// same uids with different rewards, texts and metrics. It is a real process run by the local executor
// through the worker's own dispatch and monitor steps; only the trainer is this test's. Attempt 1
// writes two steps, waits until the test has seen them ingested, and crashes; attempt 2 rewrites
// step 1, appends to step 2 behind the crashed attempt's lines (as a trainer that appends would),
// and succeeds. Each attempt records its own start and end in the heartbeat, as trainers do.
const TRAINER = `
import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
const job = JSON.parse(readFileSync(process.argv[2], "utf8"));
const out = job.outputDir;
const a = job.attempt;
const startedAt = new Date().toISOString();
const beat = (step, phase) => writeFileSync(join(out, "heartbeat.json"), JSON.stringify({ step, time: new Date().toISOString(), startedAt, phase, progress: step / 2 }));
mkdirSync(join(out, "rollouts", "train"), { recursive: true });
beat(0, "setup");
const rows = (step) => {
  const uids = [0, 1, 2, 3].map((i) => "u-" + step + "-" + i).concat(a === 1 ? ["u-" + step + "-extra"] : []);
  return uids.map((uid, i) => JSON.stringify({
    uid, split: "train", step, taskId: "t" + (i % 2), groupId: step + "-g" + (i % 2), sample: i, prompt: "2+2?",
    response: a === 1 ? "" : "The answer is " + (3 + (i % 3)), reward: a === 1 ? 0 : i % 3 === 1 ? 1 : 0.25 * i,
    responseTokens: a === 1 ? 512 : 6 + i, truncated: a === 1, finishReason: a === 1 ? "length" : "stop", attempt: a,
  }) + "\\n").join("");
};
for (const step of [1, 2]) {
  const file = join(out, "rollouts", "train", "step_" + step + ".jsonl");
  if (a > 1 && step === 1) rmSync(file, { force: true });
  appendFileSync(file, rows(step));
  appendFileSync(join(out, "metrics.jsonl"), JSON.stringify({ step, attempt: a, data: a === 1 ? { loss: 10 + step, only_first: 1 } : { loss: 20 + step } }) + "\\n");
  beat(step, "update");
}
if (a === 1) {
  writeFileSync(join(out, "..", "written"), "");
  while (!existsSync(join(out, "..", "crash"))) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
  beat(2, "teardown");
  process.exit(1);
}
beat(2, "teardown");
writeFileSync(join(out, "status.json"), JSON.stringify({ state: "succeeded", exitCode: 0, lastStep: 2 }));
`;

const redisUrl = inject("redisUrl");
const harness = await loopHarness(inject("databaseUrl"), redisUrl);
const { db, prefix } = harness;
const dir = mkdtempSync(join(tmpdir(), "evo-retry-attempts-"));
const trainer = join(dir, "trainer.mjs");
writeFileSync(trainer, TRAINER);

const nonDeterministic: TrainerAdapter = {
  name: "gym",
  render: (job: Job) => ({ command: [process.execPath, trainer, "job.json"], env: {}, files: { "job.json": JSON.stringify(job) } }),
};

/** What the retry writes, as the database must hold it: uid → reward, response tokens, truncated. */
function retryRows(): Record<string, string> {
  const rows: Record<string, string> = {};
  for (const step of [1, 2]) for (const i of [0, 1, 2, 3]) rows[`u-${step}-${i}`] = `${i % 3 === 1 ? 1 : 0.25 * i} ${6 + i} false`;
  return rows;
}

async function storedRows(runId: string): Promise<Record<string, string>> {
  const rows = await db.rollout.findMany({ where: { runId } });
  return Object.fromEntries(rows.map((r) => [r.uid, `${r.reward} ${r.responseTokens} ${r.truncated}`]));
}

/** Every aggregate ingest keeps (the `train/` points), counted again from the stored rows and their labels. */
async function recount(branchId: string, labels: readonly string[]): Promise<Record<string, number>> {
  const rows = await db.rollout.findMany({ where: { branchId }, include: { labels: true } });
  const points: Record<string, number> = {};
  for (const step of new Set(rows.map((r) => r.step))) {
    const at = rows.filter((r) => r.step === step);
    const groups = [...new Set(at.map((r) => r.groupId))].map((g) => at.filter((r) => r.groupId === g)).filter((g) => g.length >= 2);
    points[`train/rollouts@${step}`] = at.length;
    points[`train/reward_mean@${step}`] = at.reduce((s, r) => s + r.reward!, 0) / at.length;
    points[`train/truncation_rate@${step}`] = at.filter((r) => r.truncated).length / at.length;
    points[`train/response_tokens_mean@${step}`] = at.reduce((s, r) => s + r.responseTokens, 0) / at.length;
    points[`train/dead_group_ratio@${step}`] = groups.filter((g) => new Set(g.map((r) => r.reward)).size === 1).length / groups.length;
    for (const label of labels) points[`train/label/${label}@${step}`] = at.filter((r) => r.labels.some((l) => l.label === label)).length / at.length;
  }
  return points;
}

describe("a retried job: rollouts and metrics of the branch come from the attempt that finished", () => {
  afterAll(async () => {
    await harness.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("replaces the crashed attempt's rows, labels, aggregates and trainer metrics with the retry's different ones for the same uids", async () => {
    const org = await db.organization.create({ data: { name: prefix, slug: prefix } });
    const config = runConfigSchema.parse({ ...(parse(readFileSync("examples/gym-math.yaml", "utf8")) as Record<string, unknown>), name: "non-deterministic retry" });
    const { runId, baseBranchId } = await createRun(db, config, { organizationId: org.id });
    const deps = harness.depsWith(new ExecutorPool(db, join(dir, "jobs"), process.env, () => {}), { adapters: { gym: nonDeterministic, verl: verlAdapter(), trl: trlAdapter() }, heartbeatStaleMs: 600_000 });
    const step = { runId, branchId: baseBranchId };
    expect(await dispatch(deps, step)).toBe("launched");
    const job = await db.job.findFirstOrThrow({ where: { branchId: baseBranchId } });
    const jobDir = join(dir, "jobs", job.id);
    const pass = () => monitor(deps, { ...step, jobId: job.id });

    // The first attempt's rows are in while it runs.
    await until("attempt 1 to write its steps", async () => existsSync(join(jobDir, "written")));
    expect(await pass()).toBe("running");
    const first = await storedRows(runId);
    expect(Object.keys(first)).toHaveLength(10);
    expect(Object.values(first).every((r) => r === "0 512 true")).toBe(true);
    expect(await db.metricPoint.count({ where: { branchId: baseBranchId, name: "trainer/only_first" } })).toBe(2);
    expect(await db.rolloutLabel.count({ where: { branchId: baseBranchId, label: "empty_response" } })).toBe(10);

    // It crashes; the retry is launched by the same dispatch step the queue would run after the backoff.
    writeFileSync(join(jobDir, "crash"), "");
    expect(await until("the crash to be seen", async () => ((await pass()) === "running" ? null : await db.job.findUniqueOrThrow({ where: { id: job.id } })))).toMatchObject({ state: "pending", attempts: 1 });
    expect(await dispatch(deps, step)).toBe("launched");
    const settled = await until("the retry to succeed", async () => ((await pass()) === "trained" ? "trained" : null));
    expect(settled).toBe("trained");

    // Only the retry's rows: the same uids with its own content, and none the crashed attempt alone wrote.
    expect(await storedRows(runId)).toEqual(retryRows());
    const points = await db.metricPoint.findMany({ where: { branchId: baseBranchId } });
    const byName = Object.fromEntries(points.map((p) => [`${p.name}@${p.step}`, p.value]));
    // The trainer's metrics are the retry's, and a metric only the crashed attempt logged is gone.
    expect(points.filter((p) => p.name.startsWith("trainer/")).map((p) => `${p.name}@${p.step}=${p.value}`).sort()).toEqual(["trainer/loss@1=21", "trainer/loss@2=22"]);
    // Step aggregates and label rates match a recount of what is stored, point for point.
    const stored = Object.fromEntries(Object.entries(byName).filter(([name]) => name.startsWith("train/")));
    const labels = [...new Set(Object.keys(stored).flatMap((k) => (k.startsWith("train/label/") ? [k.slice("train/label/".length, k.indexOf("@"))] : [])))];
    expect(labels).toEqual(expect.arrayContaining(["truncated", "empty_response"]));
    const expected = await recount(baseBranchId, labels);
    expect(Object.keys(stored).sort()).toEqual(Object.keys(expected).sort());
    for (const [name, value] of Object.entries(expected)) expect(stored[name], name).toBeCloseTo(value, 12);
    // The crashed attempt's empty responses were all labelled; the retry's are not empty.
    expect([stored["train/label/empty_response@1"], stored["train/label/empty_response@2"]]).toEqual([0, 0]);
    const stats = await db.labelStat.findMany({ where: { branchId: baseBranchId } });
    for (const s of stats) {
      const rows = await db.rollout.findMany({ where: { branchId: baseBranchId, step: s.step }, include: { labels: { where: { detectorId: s.detectorId } } } });
      expect(`${s.label}@${s.step} ${s.count}/${s.total}`).toBe(`${s.label}@${s.step} ${rows.filter((r) => r.labels.length > 0).length}/${rows.length}`);
    }
    const stepStats = await db.stepStat.findMany({ where: { branchId: baseBranchId }, orderBy: { step: "asc" } });
    expect(stepStats.map((s) => `${s.step} ${s.rollouts} ${s.truncated}`)).toEqual(["1 4 0", "2 4 0"]);
  }, 120_000);
});
