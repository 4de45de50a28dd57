// npm run bench:learning -- --seeds 3 --out <file.json> [--size full|smoke] [--rounds 3] [--steps 20]
//
// The method's claim on a real trainer: the loop (diagnose, intervene, judge against controls) against
// the frozen reference recipe (learning-reference.ts), both on real TRL (CPU) from the tiny arithmetic
// model's SFT build (scripts/tiny-model/build.py), scored on the build's sealed split.
// - loop: `evotrainer run --wait` of a TRL config through the real worker;
// - reference: the loop's own base job (same recipe, trainer arguments and data) trained in one go,
//   once for the steps of the loop's promoted lineage (equal steps) and once for every step the loop
//   trained: the base, the candidates and the controls (equal total compute);
// - base: the SFT model itself on the sealed split.
// Prints a row per arm with its mean and paired interval over the seeds; --out gets one object a seed.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { trlAdapter } from "@evotrainer/adapters";
import { jobSchema, metricsLineSchema, paths, readEval, type Job } from "@evotrainer/contract";
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
import { referenceAlgo, referenceTrainerArgs } from "./learning-reference.ts";
import { summaryTable, type SeedResult } from "./learning-summary.ts";

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
  recipe: { ...example.recipe, algo: referenceAlgo },
  evaluation: { promotion: split("promotion", 4, 0.7), sealed: split("sealed", 1, 0), seed: 7 },
  search: { proposals: 2, keep: 1, stepsPerBranch: steps, proposer: "rule" },
  budget: { gpuSeconds: 1_000_000, branches: rounds, rounds },
  adapter: "trl",
  executor: "local",
  resources: { gpusPerJob: 0 },
  trainer: { python: TRL_PYTHON, dataset: tiny.train, args: referenceTrainerArgs },
});

const CLOCK_TICKS = Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout.trim()) || 100;

/** CPU seconds of this process's waited-for children so far (/proc/self/stat's cutime + cstime). */
function childCpuSeconds(): number {
  const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[13]) + Number(fields[14])) / CLOCK_TICKS;
}

/** This process's own CPU seconds (the worker runs in it) and its children's. */
const cpuNow = () => {
  const own = process.cpuUsage();
  return (own.user + own.system) / 1e6 + childCpuSeconds();
};

/** Training reward by step from a job's metrics.jsonl (TRL logs the batch's mean reward as `reward`). */
function rewardCurve(outputDir: string, offset = 0): [number, number][] {
  const file = paths(outputDir).metrics;
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => metricsLineSchema.parse(JSON.parse(line)))
    .filter((m) => typeof m.data.reward === "number")
    .map((m) => [offset + m.step, m.data.reward as number]);
}

/** Runs one TRL job outside the loop, in its own directory: its sealed score, CPU seconds and reward curve. */
async function sealedOf(job: Job): Promise<{ sealed: number; cpuSeconds: number; curve: [number, number][] }> {
  const workDir = join(scratch, job.jobId);
  mkdirSync(join(workDir, "output"), { recursive: true });
  const rendered = trlAdapter().render(job);
  for (const [file, text] of Object.entries(rendered.files)) writeFileSync(join(workDir, file), text);
  const before = childCpuSeconds();
  const done = spawnSync(rendered.command[0]!, rendered.command.slice(1), { cwd: workDir, env: { ...process.env, ...rendered.env }, encoding: "utf8" });
  if (done.status !== 0) throw new Error(`${job.jobId} failed (${done.status}):\n${done.stderr.slice(-4_000)}`);
  const cpuSeconds = childCpuSeconds() - before;
  const steps = readdirSync(join(job.outputDir, "eval")).map((n) => Number(/^step_(\d+)\.json$/.exec(n)?.[1] ?? -1));
  const score = (await readEval(job.outputDir, Math.max(...steps)))?.splits.sealed?.score;
  if (typeof score !== "number") throw new Error(`${job.jobId} wrote no sealed score`);
  return { sealed: score, cpuSeconds, curve: rewardCurve(job.outputDir) };
}

const env = loadWorkerEnv({ DATABASE_URL: database.url, REDIS_URL: redisUrl, EVO_QUEUE_PREFIX: prefix, EVO_JOBS_DIR: jobsDir, EVO_MONITOR_EVERY_MS: "1000" });
const worker = await startWorkerApp(env, (lockedEvaluation) => new RuleBasedProposer({ lockedEvaluation }), () => {});
const rows: SeedResult[] = [];
try {
  for (let seed = 1; seed <= seeds; seed++) {
    const configFile = join(scratch, `loop-${seed}.json`);
    writeFileSync(configFile, JSON.stringify(loopConfig(seed), null, 2));
    say(`seed ${seed}: the loop (${rounds} rounds of ${steps} steps a branch)`);
    const loopStarted = cpuNow();
    const result = await runCli(["run", configFile, "--wait", "--json"], { DATABASE_URL: database.url, REDIS_URL: redisUrl, EVO_QUEUE_PREFIX: prefix });
    const loopCpu = cpuNow() - loopStarted;
    if (result.code !== 0) throw new Error(`the loop's run failed:\n${result.stderr}`);
    const report = JSON.parse(result.stdout) as RunReport;
    if (typeof report.sealed?.score !== "number") throw new Error(`the loop's run has no sealed score: ${result.stdout.slice(0, 2_000)}`);
    const trainJobs = await db.job.findMany({ where: { branch: { runId: report.runId }, kind: "train", state: "succeeded" }, orderBy: { createdAt: "asc" } });
    const jobOf = (id: string) => jobSchema.parse(JSON.parse(readFileSync(join(jobsDir, id, "job.json"), "utf8")));
    const stepsOf = (id: string) => jobOf(id).budget.maxSteps ?? 0;
    const byId = new Map(report.branches.map((b) => [b.id, b]));
    const lineage: string[] = [];
    for (let id = report.bestBranchId; id; id = byId.get(id)?.parentId ?? null) lineage.unshift(id);
    const lineageJobs = lineage.flatMap((branchId) => trainJobs.filter((j) => j.branchId === branchId).slice(-1));
    const loopCurve: [number, number][] = [];
    let lineageSteps = 0;
    for (const j of lineageJobs) {
      loopCurve.push(...rewardCurve(jobOf(j.id).outputDir, lineageSteps));
      lineageSteps += stepsOf(j.id);
    }
    const totalSteps = trainJobs.reduce((sum, j) => sum + stepsOf(j.id), 0);
    const baseJob = jobOf(lineageJobs[0]!.id);
    const promoted = lineage.slice(1).map((id) => `v${byId.get(id)!.version} ${byId.get(id)!.factor}`);
    const reference = (name: string, maxSteps: number) =>
      sealedOf({ ...baseJob, jobId: `${name}-${seed}`, seed, outputDir: join(scratch, `${name}-${seed}`, "output"), evalSplits: ["sealed"], budget: { ...baseJob.budget, maxSteps, maxSeconds: 86_400 } });

    say(`seed ${seed}: the reference recipe at equal steps (${lineageSteps}) and at equal total compute (${totalSteps})`);
    const equalSteps = await reference("reference-equal-steps", lineageSteps);
    const equalCompute = await reference("reference-equal-compute", totalSteps);
    const base = await sealedOf({ ...baseJob, jobId: `base-${seed}`, kind: "eval", outputDir: join(scratch, `base-${seed}`, "output"), evalSplits: ["sealed"] });
    rows.push({
      seed,
      base: base.sealed,
      referenceEqualSteps: equalSteps.sealed,
      referenceEqualCompute: equalCompute.sealed,
      loop: report.sealed.score,
      promoted,
      cpuSeconds: { reference: equalCompute.cpuSeconds, loop: loopCpu },
      steps: { lineage: lineageSteps, total: totalSteps },
      curves: { reference: equalCompute.curve, loop: loopCurve },
    });
    const r = rows.at(-1)!;
    say(`seed ${seed}: base ${r.base.toFixed(3)}, reference ${r.referenceEqualSteps.toFixed(3)} (equal steps) ${r.referenceEqualCompute.toFixed(3)} (equal compute), loop ${r.loop.toFixed(3)} (${promoted.join(", ") || "nothing promoted"})`);
    if (values.out) writeFileSync(values.out, `${JSON.stringify(rows, null, 2)}\n`);
  }
} finally {
  await worker.shutdown();
  await db.$disconnect();
  await database.drop();
  await deleteKeys(redisUrl, `${prefix}:*`);
  rmSync(scratch, { recursive: true, force: true });
}

console.log(`bench:learning — tiny arithmetic model (${size}), real TRL on CPU, ${rounds} rounds × ${steps} steps a branch, sealed split greedy`);
for (const line of summaryTable(rows)) console.log(line);
