import type { ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import { parse } from "yaml";
import { runConfigSchema } from "@evotrainer/core";
import { createDatabase } from "@evotrainer/db";
import { createTestDatabase } from "@evotrainer/db/testing";
import { deleteKeys, testPrefix } from "../support/redis-prefix.ts";
import { runTables } from "../support/run-tables.ts";
import { until } from "../support/until.ts";
import { enqueueRun, killWorker, startWorkerProcess } from "../support/worker-process.ts";

// A database of its own: every worker's reconcile sweep drives all the runs of its database, so a worker
// of another test file would otherwise keep this run going while this one lies killed.
const database = await createTestDatabase(inject("databaseUrl"));
const databaseUrl = database.url;
const redisUrl = inject("redisUrl");
const scratch = process.env.EVO_CHAOS_DIR ?? mkdtempSync(join(tmpdir(), "evo-chaos-"));
const db = createDatabase(databaseUrl);
const SEED = Number(process.env.EVO_CHAOS_SEED ?? 20261124);
const MIN_KILLS = 20;

// A short run of the demo config: two rounds of one candidate and its controls.
const base = parse(readFileSync("examples/gym-swe.yaml", "utf8")) as Record<string, unknown>;
const config = runConfigSchema.parse({
  ...base,
  name: "chaos",
  search: { proposals: 2, keep: 1, stepsPerBranch: 16, proposer: "rule" },
  budget: { gpuSeconds: 100_000, branches: 2, rounds: 2 },
});

/** A small seeded generator (mulberry32): the same seed draws the same kill points. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

let started = 0;
function startWorker(prefix: string, failpoint?: { spec: string; file: string }): ChildProcess {
  // Each incarnation's output in a file of its own, for when a comparison fails.
  const logFile = join(scratch, "logs", `worker-${++started}.log`);
  return startWorkerProcess({ databaseUrl, redisUrl, prefix, jobsDir: join(scratch, "jobs"), logFile, ...(failpoint ? { failpoint } : {}) });
}

const killed = killWorker;

const startRun = async (prefix: string) => (await enqueueRun(db, redisUrl, prefix, config)).runId;

const finished = async (runId: string) => ["completed", "failed"].includes((await db.run.findUniqueOrThrow({ where: { id: runId } })).status);
// A run's last act is the worker's retention sweep once it ended (EVO_RETENTION defaults to after-run).
const settled = async (runId: string) =>
  (await finished(runId)) && (await db.event.count({ where: { runId, type: "retention_applied", payload: { path: ["trigger"], equals: "run_end" } } })) > 0;

const tables = (runId: string) => runTables(db, runId);

/**
 * What a run was charged per trained step, in GPU-seconds, beside what its trainers measured those
 * steps took on their own clock (`trainer/timing_s/step`): the same work on a slower moment of the
 * machine takes longer on both, so their ratio tells charged overhead from machine speed.
 */
async function budgetSpent(runId: string) {
  const run = await db.run.findUniqueOrThrow({ where: { id: runId } });
  const steps = await db.metricPoint.findMany({ where: { branch: { runId }, name: "trainer/timing_s/step" }, select: { value: true } });
  const stepSeconds = steps.reduce((sum, s) => sum + s.value, 0);
  return { perStep: run.gpuSecondsUsed / steps.length, perTrainerSecond: run.gpuSecondsUsed / stepSeconds, steps: steps.length };
}

/** Where the run stands, to pick a kill point that lies ahead of it. */
async function phase(runId: string): Promise<"finishing" | "judging" | "training" | "between rounds"> {
  const run = await db.run.findUniqueOrThrow({ where: { id: runId }, include: { branches: { select: { status: true } } } });
  if (run.status === "finishing") return "finishing";
  const statuses = run.branches.map((b) => b.status);
  if (statuses.includes("evaluating")) return "judging";
  if (statuses.some((s) => s === "queued" || s === "training")) return "training";
  return "between rounds";
}

// A point the run reaches after leaving a phase: dispatch comes after a round is proposed, whether it
// starts the next round's branches or the sealed evaluation.
const AHEAD: Record<string, readonly { name: string; recurs: boolean }[]> = {
  training: [{ name: "step:verdict", recurs: false }],
  judging: [{ name: "step:dispatch", recurs: false }],
  "between rounds": [{ name: "step:dispatch", recurs: false }],
};

// Points that recur many times in a phase may be struck at their 1st to 3rd hit; the others only at
// their next one, which a run always reaches while it is in that phase.
const POINTS: Record<string, readonly { name: string; recurs: boolean }[]> = {
  training: [
    { name: "monitor:training", recurs: true },
    { name: "ingest:batch", recurs: true },
    { name: "step:monitor", recurs: true },
    { name: "step:dispatch", recurs: false },
  ],
  // A dead worker judges nothing: an evaluating branch is still evaluating when the next one starts.
  judging: [{ name: "step:verdict", recurs: false }],
  "between rounds": [
    { name: "propose:planned", recurs: false },
    { name: "step:propose", recurs: false },
  ],
};

describe("chaos: a worker SIGKILLed at 20+ seeded moments of a gym run finishes it exactly as an undisturbed one", () => {
  const prefixes = [testPrefix(), testPrefix(), testPrefix()];
  const workers: ChildProcess[] = [];
  afterAll(async () => {
    // Every worker gone before its keys are: a live one would write some back.
    for (const w of workers) await killed(w);
    for (const p of prefixes) await deleteKeys(redisUrl, `${p}:*`);
    await db.$disconnect();
    // EVO_CHAOS_DIR keeps the worker logs and the database for a post-mortem.
    if (!process.env.EVO_CHAOS_DIR) await database.drop();
    if (!process.env.EVO_CHAOS_DIR) rmSync(scratch, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  });

  it("matches the undisturbed run in every table, killed or doubled", async () => {
    const [calm, stormy, doubled] = prefixes as [string, string, string];
    console.log(`chaos seed ${SEED} (EVO_CHAOS_SEED=${SEED} replays it)`);

    const calmWorker = startWorker(calm);
    workers.push(calmWorker);
    const calmRun = await startRun(calm);
    await until("the undisturbed run", () => settled(calmRun), 600_000);
    const expected = await tables(calmRun);
    const calmBudget = await budgetSpent(calmRun);
    // From here on only the worker under test may drive a run.
    await killed(calmWorker);

    // Each incarnation of the worker stops at a seeded point ahead of where the run stands and is
    // SIGKILLed there, then the next one starts. The first kills take one point of each phase, in the
    // order a run reaches them. Until 20 kills are in, the sealed evaluation's dispatch is armed too, as
    // a backstop that every run reaches before it can complete (and reaches again after each kill);
    // after that the sealed evaluation is struck once, then the run may finish.
    const required = ["monitor:training", "ingest:batch", "verdict:decided", "propose:planned"];
    const backstop = "dispatch:sealed-evaluation:1";
    const random = rng(SEED);
    const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)]!;
    // Two kills in a row in one phase: the next is taken further on, so the run moves through them all.
    const streak = (where: string) => kills.slice(-2).filter((k) => k.endsWith(`(run ${where})`)).length;
    const strike = (point: { name: string; recurs: boolean }) => `${point.name}:${point.recurs ? 1 + Math.floor(random() * 3) : 1}`;
    const stormyRun = await startRun(stormy);
    const kills: string[] = [];
    let flushed = false;
    for (let incarnation = 0; !(await finished(stormyRun)); incarnation++) {
      const where = await phase(stormyRun);
      const sealedStruck = kills.some((k) => k.includes("sealed-evaluation"));
      const spec =
        kills.length < required.length ? `${required[kills.length]}:1,${backstop}`
        : kills.length < MIN_KILLS && where !== "finishing" ? `${strike(pick(streak(where) >= 2 ? AHEAD[where]! : POINTS[where]!))},${backstop}`
        : kills.length < MIN_KILLS || !sealedStruck ? backstop
        : "monitor:sealed-evaluation:1";
      const file = join(scratch, `failpoint-${incarnation}`);
      const worker = startWorker(stormy, { spec, file });
      workers.push(worker);
      const reached = await until(`failpoint ${spec} or the end of the run`, async () => existsSync(file) || (await finished(stormyRun)), 600_000);
      await killed(worker);
      if (existsSync(file)) kills.push(`${readFileSync(file, "utf8")} (run ${where})`);
      else console.log(`the run finished before ${spec}`);
      // Once, mid-run, Redis also loses every key of this installation.
      if (!flushed && kills.length === Math.floor(MIN_KILLS / 2)) {
        console.log(`flushed ${await deleteKeys(redisUrl, `${stormy}:*`)} Redis keys with the worker down`);
        flushed = true;
      }
      expect(reached).toBe(true);
    }
    console.log(`chaos seed ${SEED}: ${kills.length} kills\n  ${kills.join("\n  ")}`);
    // The last incarnation was killed as the run ended: one more sweeps it as a worker would.
    const sweeper = startWorker(stormy);
    workers.push(sweeper);
    await until("the stormy run's retention sweep", () => settled(stormyRun), 600_000);
    await killed(sweeper);
    const disturbed = await tables(stormyRun);
    const stormyBudget = await budgetSpent(stormyRun);
    console.log(`GPU-seconds per trained step: calm ${calmBudget.perStep.toFixed(3)}, stormy ${stormyBudget.perStep.toFixed(3)}; per second of the trainers' own step time: calm ${calmBudget.perTrainerSecond.toFixed(3)}, stormy ${stormyBudget.perTrainerSecond.toFixed(3)}`);

    // Two workers at once on one run: every step is claimed by one of them, none is done twice.
    workers.push(startWorker(doubled), startWorker(doubled));
    const doubledRun = await startRun(doubled);
    await until("the run with two workers", () => settled(doubledRun), 600_000);
    const twice = await tables(doubledRun);

    expect(expected.status).toBe("completed");
    expect(expected.sealed).not.toBeNull();
    expect(expected.rollouts.length).toBeGreaterThan(0);
    // Every judged branch keeps the health report its verdict read, leaves included.
    expect(expected.verdicts.filter((v) => !v.endsWith("report stored"))).toEqual([]);
    expect(kills.length).toBeGreaterThanOrEqual(MIN_KILLS);
    // During training, inside an ingest transaction, between verdict and decision, during propose, and
    // during the sealed evaluation.
    for (const point of [...required, "sealed-evaluation"]) expect(kills.some((k) => k.includes(point)), point).toBe(true);
    // The budget is the jobs' own time: SIGKILLing the worker kills no job (each runs in its own session),
    // so the stormy run's jobs do the calm run's work and are charged by their own clocks (heartbeat
    // start to last beat), never for the worker's downtime or restarts. Measured against the trainers'
    // own step time, which slows with the machine as the charge does, the stormy run may cost at most
    // a quarter more per step: room for setup and evaluation, which the step time does not cover, to
    // run slower while a restarting worker competes for the CPU. Charged by control-plane wall time, as
    // before, each kill added the time until the restarted worker's next look to every running job.
    expect(stormyBudget.steps).toBe(calmBudget.steps);
    expect(stormyBudget.perTrainerSecond).toBeLessThanOrEqual(calmBudget.perTrainerSecond * 1.25);
    // Every table is compared, and every difference reported, before the test fails.
    for (const key of Object.keys(expected) as (keyof typeof expected)[]) {
      expect.soft(disturbed[key], `killed run: ${key}`).toEqual(expected[key]);
      expect.soft(twice[key], `two workers: ${key}`).toEqual(expected[key]);
    }
  }, 1_800_000);
});
