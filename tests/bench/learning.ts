// npm run bench:learning -- --seeds 3 --out <file> [--size full|smoke] [--rounds 3] [--steps 20]
//
// The method's claim on a real trainer: the loop (diagnose, intervene, judge against controls) against
// a frozen reference recipe at equal total compute, both on real TRL (CPU) from the tiny arithmetic
// model's SFT build (scripts/tiny-model/build.py), scored on the build's sealed split.
// - loop: `evotrainer run --wait` of a TRL config through the real worker; its compute is every train
//   step it took: the base, the candidates and the controls;
// - reference: the loop's own base job (same recipe, trainer arguments and data), trained in one go
//   for that many steps, then the sealed split;
// - base: the SFT model itself on the sealed split.
// Prints one row per seed and the paired mean difference (loop − reference) with its 95% t interval.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { trlAdapter } from "@evotrainer/adapters";
import { jobSchema, readEval, type Job } from "@evotrainer/contract";
import { studentTQuantileUpper } from "@evotrainer/core";
import { createDatabase, type RunReport } from "@evotrainer/db";
import { createTestDatabase } from "@evotrainer/db/testing";
import { DEFAULT_REDIS_URL } from "@evotrainer/queue";
import { RuleBasedProposer } from "@evotrainer/proposers";
import { parse } from "yaml";
import { loadWorkerEnv } from "../../apps/worker/src/env.ts";
import { startWorkerApp } from "../../apps/worker/src/worker-app.ts";
import { runCli } from "../support/cli.ts";
import { buildTinyArithmeticModel, TRL_PYTHON, trlUnavailable } from "../support/real-trainers.ts";
import { deleteKeys, nameTestRun, testPrefix } from "../support/redis-prefix.ts";

const { values } = parseArgs({
  options: {
    seeds: { type: "string", default: "3" },
    out: { type: "string" },
    size: { type: "string", default: "full" },
    rounds: { type: "string", default: "3" },
    steps: { type: "string", default: "20" },
  },
});
const seeds = Number(values.seeds);
const rounds = Number(values.rounds);
const steps = Number(values.steps);
const size = values.size as "full" | "smoke";
if (![seeds, rounds, steps].every((n) => Number.isInteger(n) && n > 0) || !["full", "smoke"].includes(size)) {
  console.error("usage: npm run bench:learning -- --seeds N --out FILE [--size full|smoke] [--rounds N] [--steps N]");
  process.exit(2);
}
const unavailable = trlUnavailable();
if (unavailable) {
  console.error(`bench:learning needs TRL: ${unavailable}`);
  process.exit(1);
}
const say = (line: string) => console.error(`bench:learning: ${line}`);
const lines: string[] = [];
const print = (line = "") => {
  console.log(line);
  lines.push(line);
};

const build = spawnSync(process.execPath, ["scripts/build-programs.mjs"], { stdio: "inherit" });
if (build.status !== 0) process.exit(build.status ?? 1);

// The build is kept between runs (its key is its script and parameters): a full build takes minutes.
say(`the tiny model (${size}) in ${resolve(".cache/tiny-model", size)}`);
const tiny = buildTinyArithmeticModel(size, "inherit");
const model = tiny.model;

const scratch = mkdtempSync(join(tmpdir(), "evo-bench-learning-"));
const database = await createTestDatabase();
const redisUrl = process.env.REDIS_URL ?? DEFAULT_REDIS_URL;
nameTestRun();
const prefix = testPrefix();
const jobsDir = join(scratch, "jobs");
const db = createDatabase(database.url);

const example = parse(readFileSync("examples/gym-math.yaml", "utf8")) as Record<string, any>;
const split = (name: "promotion" | "sealed", samplesPerTask: number, temperature: number) => ({ dataset: tiny[name], samplesPerTask, temperature, maxResponseTokens: 64, grader: "math" });
const loopConfig = (seed: number) => ({
  ...example,
  name: `bench-learning-seed-${seed}`,
  seed,
  basePolicy: model,
  recipe: { ...example.recipe, algo: { ...example.recipe.algo, groupSize: 4, maxResponseTokens: 64, lr: 1e-4 } },
  evaluation: { promotion: split("promotion", 4, 0.7), sealed: split("sealed", 1, 0), seed: 7 },
  search: { proposals: 2, keep: 1, stepsPerBranch: steps, proposer: "rule" },
  budget: { gpuSeconds: 1_000_000, branches: rounds, rounds },
  adapter: "trl",
  executor: "local",
  resources: { gpusPerJob: 0 },
  trainer: { python: TRL_PYTHON, dataset: tiny.train, args: { per_device_train_batch_size: 4 } },
});

/** Runs one TRL job outside the loop, in its own directory: its sealed score and its seconds. */
async function sealedOf(job: Job): Promise<{ sealed: number; seconds: number }> {
  const workDir = join(scratch, job.jobId);
  mkdirSync(join(workDir, "output"), { recursive: true });
  const rendered = trlAdapter().render(job);
  for (const [file, text] of Object.entries(rendered.files)) writeFileSync(join(workDir, file), text);
  const started = Date.now();
  const done = spawnSync(rendered.command[0]!, rendered.command.slice(1), { cwd: workDir, env: { ...process.env, ...rendered.env }, encoding: "utf8" });
  if (done.status !== 0) throw new Error(`${job.jobId} failed (${done.status}):\n${done.stderr.slice(-4_000)}`);
  const seconds = (Date.now() - started) / 1000;
  const steps = readdirSync(join(job.outputDir, "eval")).map((n) => Number(/^step_(\d+)\.json$/.exec(n)?.[1] ?? -1));
  const score = (await readEval(job.outputDir, Math.max(...steps)))?.splits.sealed?.score;
  if (typeof score !== "number") throw new Error(`${job.jobId} wrote no sealed score`);
  return { sealed: score, seconds };
}

interface Row {
  seed: number;
  base: number;
  reference: number;
  loop: number;
  loopSteps: number;
  loopSeconds: number;
  referenceSeconds: number;
  trail: string;
}

const env = loadWorkerEnv({ DATABASE_URL: database.url, REDIS_URL: redisUrl, EVO_QUEUE_PREFIX: prefix, EVO_JOBS_DIR: jobsDir, EVO_MONITOR_EVERY_MS: "1000" });
const worker = await startWorkerApp(env, (lockedEvaluation) => new RuleBasedProposer({ lockedEvaluation }), () => {});
const rows: Row[] = [];
try {
  for (let seed = 1; seed <= seeds; seed++) {
    const configFile = join(scratch, `loop-${seed}.json`);
    writeFileSync(configFile, JSON.stringify(loopConfig(seed), null, 2));
    say(`seed ${seed}: the loop (${rounds} rounds of ${steps} steps a branch)`);
    const started = Date.now();
    const result = await runCli(["run", configFile, "--wait", "--json"], { DATABASE_URL: database.url, REDIS_URL: redisUrl, EVO_QUEUE_PREFIX: prefix });
    const loopSeconds = (Date.now() - started) / 1000;
    if (result.code !== 0) throw new Error(`the loop's run failed:\n${result.stderr}`);
    const report = JSON.parse(result.stdout) as RunReport;
    if (typeof report.sealed?.score !== "number") throw new Error(`the loop's run has no sealed score: ${result.stdout.slice(0, 2_000)}`);
    const trainJobs = await db.job.findMany({ where: { branch: { runId: report.runId }, kind: "train", state: "succeeded" }, include: { branch: true }, orderBy: { createdAt: "asc" } });
    const jobOf = (id: string) => jobSchema.parse(JSON.parse(readFileSync(join(jobsDir, id, "job.json"), "utf8")));
    const loopSteps = trainJobs.reduce((sum, j) => sum + (jobOf(j.id).budget.maxSteps ?? 0), 0);
    const baseJob = jobOf(trainJobs.find((j) => j.branch.version === 0)!.id);
    const promoted = report.branches.filter((b) => b.status === "promoted").map((b) => `v${b.version} ${b.factor}`);

    say(`seed ${seed}: the reference recipe for the loop's ${loopSteps} steps`);
    const reference = await sealedOf({ ...baseJob, jobId: `reference-${seed}`, seed, outputDir: join(scratch, `reference-${seed}`, "output"), evalSplits: ["sealed"], budget: { ...baseJob.budget, maxSteps: loopSteps, maxSeconds: 86_400 } });
    const base = await sealedOf({ ...baseJob, jobId: `base-${seed}`, kind: "eval", outputDir: join(scratch, `base-${seed}`, "output"), evalSplits: ["sealed"] });
    rows.push({ seed, base: base.sealed, reference: reference.sealed, loop: report.sealed.score, loopSteps, loopSeconds, referenceSeconds: reference.seconds, trail: promoted.join(", ") || "nothing promoted" });
    say(`seed ${seed}: base ${base.sealed.toFixed(3)}, reference ${reference.sealed.toFixed(3)}, loop ${report.sealed.score.toFixed(3)} (${rows.at(-1)!.trail})`);
  }
} finally {
  await worker.shutdown();
  await db.$disconnect();
  await database.drop();
  await deleteKeys(redisUrl, `${prefix}:*`);
  rmSync(scratch, { recursive: true, force: true });
}

const f = (x: number) => x.toFixed(3);
print(`bench:learning — tiny arithmetic model (${size}), real TRL on CPU, ${rounds} rounds × ${steps} steps a branch, sealed split greedy`);
print("| seed | base (SFT) | reference | loop | loop − reference | steps (each arm) | loop s | reference s | promoted |");
print("|---|---|---|---|---|---|---|---|---|");
for (const r of rows) print(`| ${r.seed} | ${f(r.base)} | ${f(r.reference)} | ${f(r.loop)} | ${f(r.loop - r.reference)} | ${r.loopSteps} | ${r.loopSeconds.toFixed(0)} | ${r.referenceSeconds.toFixed(0)} | ${r.trail} |`);
const diffs = rows.map((r) => r.loop - r.reference);
const mean = diffs.reduce((a, b) => a + b, 0) / diffs.length;
if (diffs.length > 1) {
  const sd = Math.sqrt(diffs.reduce((a, d) => a + (d - mean) ** 2, 0) / (diffs.length - 1));
  const half = studentTQuantileUpper(0.025, diffs.length - 1) * (sd / Math.sqrt(diffs.length));
  print(`paired mean (loop − reference): ${f(mean)}, 95% t interval [${f(mean - half)}, ${f(mean + half)}] over ${diffs.length} seeds`);
} else {
  print(`paired difference (loop − reference): ${f(mean)} (one seed: no interval)`);
}
print(`loop ≥ reference in ${diffs.filter((d) => d >= 0).length} of ${diffs.length} seeds; reference > base in ${rows.filter((r) => r.reference > r.base).length} of ${rows.length}`);
if (values.out) writeFileSync(values.out, `${lines.join("\n")}\n`);
