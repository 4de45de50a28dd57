// npm run bench -w @evotrainer/db — rollout ingest throughput on ~2 KB math rollouts: the full
// streaming path (read, validate, label with the whole math catalog, COPY, labels, LabelStat and
// step aggregates) against a plain COPY of the same parsed rows straight into "Rollout" and against
// Prisma's createMany, in the same run.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import type { Rollout } from "@evotrainer/contract";
import { compileHarness, MATH_DETECTORS } from "@evotrainer/core";
import { createDatabase } from "../src/client.ts";
import { plainCopyRollouts } from "../src/ingest/copy-rollouts.ts";
import { registerHarnessVersion, loadHarnessVersion } from "../src/repositories/harness-versions.ts";
import { availableParallelism } from "node:os";
import { harnessLabeler } from "../src/ingest/harness-labeler.ts";
import { ingestRolloutFile } from "../src/ingest/ingest-rollout-file.ts";
import { LabelerPool } from "../src/ingest/labeler-pool.ts";
import { createTestDatabase } from "../src/testing/test-database.ts";

const ROWS = Number(process.env.BENCH_ROWS ?? 20_000);
const WARM_UP_ROWS = 2_000;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const response = "Let me think step by step about the eggs and the market. ".repeat(30) + "\\boxed{42}";

function rollout(i: number): Rollout {
  return {
    uid: `1-t${Math.floor(i / 8)}-${i % 8}`,
    split: "train",
    step: 1,
    taskId: `t${Math.floor(i / 8)}`,
    groupId: `t${Math.floor(i / 8)}@1`,
    sample: i % 8,
    prompt: "Natalia sold clips to 48 of her friends in April, and then she sold half as many clips in May…",
    response,
    reward: i % 3 === 0 ? 1 : 0,
    rewardComponents: { correctness: i % 3 === 0 ? 1 : 0, format: 1 },
    responseTokens: 300,
    turns: 1,
    finishReason: "stop",
    truncated: false,
    groundTruth: i % 3 === 0 ? "42" : "41",
  };
}

async function seed(db: ReturnType<typeof createDatabase>) {
  const org = await db.organization.create({ data: { name: "bench", slug: `bench-${Math.random()}` } });
  const run = await db.run.create({
    data: { organizationId: org.id, name: "bench", domain: "math", basePolicy: "b", settings: {}, evaluationProtocol: {}, autonomyPolicy: {}, budget: {} },
  });
  const recipe = await db.recipe.upsert({ where: { hash: "bench" }, update: {}, create: { hash: "bench", canonical: "{}" } });
  const branch = await db.branch.create({ data: { runId: run.id, version: Math.floor(Math.random() * 1e9), round: 0, recipeId: recipe.id } });
  const job = await db.job.create({ data: { branchId: branch.id, executor: "local", adapter: "gym" } });
  return { runId: run.id, branchId: branch.id, jobId: job.id };
}

const database = await createTestDatabase();
const db = createDatabase(database.url);
const pgPool = new pg.Pool({ connectionString: database.url, max: 2 });
const dir = mkdtempSync(join(tmpdir(), "evo-bench-"));
try {
  const rows = Array.from({ length: ROWS }, (_, i) => rollout(i));
  const file = join(dir, "step_1.jsonl");
  writeFileSync(file, rows.map((r) => `${JSON.stringify(r)}\n`).join(""));

  // Baseline: the ORM's own bulk insert of already-parsed rows, in chunks of 1,000.
  const baselineOwner = await seed(db);
  const createManyStarted = performance.now();
  for (let i = 0; i < rows.length; i += 1_000) {
    await db.rollout.createMany({
      data: rows.slice(i, i + 1_000).map(({ trajectory: _t, groundTruth: _g, testResults: _r, extra: _e, ...r }) => ({ ...r, ...baselineOwner })),
      skipDuplicates: true,
    });
  }
  const baselineSeconds = (performance.now() - createManyStarted) / 1000;

  // Every path once on a small file first, untimed: the worker ingests file after file, so the code
  // it runs is compiled by the JIT, and a first run would time the compiler as much as the path.
  const compiled = compileHarness({ version: 1, detectors: [...MATH_DETECTORS], healthRules: [] });
  if (!compiled.ok) throw new Error("the math catalog does not compile");
  const harness = compiled.harness;
  const warmFile = join(dir, "warm-up.jsonl");
  writeFileSync(warmFile, rows.slice(0, WARM_UP_ROWS).map((r) => `${JSON.stringify(r)}\n`).join(""));
  const warmClient = await pgPool.connect();
  await warmClient.query("BEGIN");
  await plainCopyRollouts(warmClient, await seed(db), rows.slice(0, WARM_UP_ROWS));
  await warmClient.query("COMMIT");
  warmClient.release();
  const warmOwner = await seed(db);
  const warmHarness = await db.$transaction((tx) => registerHarnessVersion(tx, { runId: warmOwner.runId, parentId: null, version: 1, domain: "math", definition: harness.definition }));
  const warmLabeler = harnessLabeler(harness, (await loadHarnessVersion(db, warmHarness)).detectorRowIds, "math", 4096);
  await ingestRolloutFile(pgPool, { owner: warmOwner, file: warmFile, source: "warm-up.jsonl", keepText: () => true, labeler: warmLabeler });

  // The pool lives as long as the process (the worker starts it once), so its start is not timed.
  const pool = new LabelerPool();
  const poolStart = performance.now();
  await pool.ready();
  const poolStartSeconds = (performance.now() - poolStart) / 1000;
  // A worker compiles a harness version once and labels every file after with it; the pool caches
  // it by this key. Each round registers the catalog again for its own run, the same definition, so
  // the rounds share the key, and the threads are warmed on the small file as this thread was.
  const harnessKey = warmHarness;
  const warmThreaded = await seed(db);
  const warmThreadedLabeler = harnessLabeler(harness, (await loadHarnessVersion(db, warmHarness)).detectorRowIds, "math", 4096, { pool, harnessKey });
  await ingestRolloutFile(pgPool, { owner: warmThreaded, file: warmFile, source: "warm-up.jsonl", keepText: () => true, labeler: warmThreadedLabeler });

  // A plain COPY of the already-parsed rows into "Rollout", ids from its sequence, with no check for
  // rows stored before: the floor any ingest path pays.
  async function plainCopy(): Promise<number> {
    const plainOwner = await seed(db);
    const client = await pgPool.connect();
    const started = performance.now();
    await client.query("BEGIN");
    for (let i = 0; i < rows.length; i += 5_000) await plainCopyRollouts(client, plainOwner, rows.slice(i, i + 5_000));
    await client.query("COMMIT");
    client.release();
    return (performance.now() - started) / 1000;
  }

  // Full ingest from the JSONL file on disk: read, zod-validate and label every line with the math
  // catalog, on this thread or with detectors in the pool's worker threads (one per core but one).
  async function ingest(threads: boolean): Promise<{ seconds: number; owner: Awaited<ReturnType<typeof seed>>; labels: number }> {
    const owner = await seed(db);
    const harnessId = await db.$transaction((tx) => registerHarnessVersion(tx, { runId: owner.runId, parentId: null, version: 1, domain: "math", definition: harness.definition }));
    const { detectorRowIds } = await loadHarnessVersion(db, harnessId);
    const labeler = harnessLabeler(harness, detectorRowIds, "math", 4096, threads ? { pool, harnessKey } : undefined);
    const started = performance.now();
    const result = await ingestRolloutFile(pgPool, { owner, file, source: "rollouts/train/step_1.jsonl", keepText: () => true, labeler });
    const seconds = (performance.now() - started) / 1000;
    if (result.inserted !== ROWS) throw new Error(`ingest inserted ${result.inserted} of ${ROWS}`);
    return { seconds, owner, labels: await db.rolloutLabel.count({ where: { branchId: owner.branchId } }) };
  }

  // Each path starts from the same database state: what the one before wrote is vacuumed and
  // flushed, so no path pays for autovacuum or a checkpoint that another one caused.
  async function settle(): Promise<void> {
    await db.$executeRawUnsafe("VACUUM ANALYZE");
    await db.$executeRawUnsafe("CHECKPOINT");
  }

  // The paths take turns, ROUNDS times, and each is reported by its median: a 2-core machine shared
  // with Postgres varies by a fifth from one second to the next.
  const times = { plain: [] as number[], single: [] as number[], threaded: [] as number[] };
  let last!: Awaited<ReturnType<typeof ingest>>;
  const labelCounts = new Set<number>();
  const paths = {
    plain: plainCopy,
    single: async () => {
      last = await ingest(false);
      labelCounts.add(last.labels);
      return last.seconds;
    },
    threaded: async () => {
      const threaded = await ingest(true);
      labelCounts.add(threaded.labels);
      return threaded.seconds;
    },
  };
  // Each round starts the turn with the next path, so none is always the one run after another's writes.
  const order = ["plain", "single", "threaded"] as const;
  for (let round = 0; round < ROUNDS; round++) {
    for (let turn = 0; turn < order.length; turn++) {
      const path = order[(round + turn) % order.length]!;
      await settle();
      times[path].push(await paths[path]());
    }
  }
  await pool.close();
  if (labelCounts.size !== 1) throw new Error(`single-threaded and threaded labelling found different numbers of labels: ${[...labelCounts].join(", ")}`);
  const labels = [...labelCounts][0]!;

  const started = performance.now();
  await db.ingestCursor.deleteMany({ where: { jobId: last.owner.jobId } });
  const again = await ingestRolloutFile(pgPool, { owner: last.owner, file, source: "rollouts/train/step_1.jsonl", keepText: () => true, labeler: warmLabeler });
  const reingestSeconds = (performance.now() - started) / 1000;
  if (again.inserted !== 0) throw new Error("re-ingest duplicated rows");

  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const [plainSeconds, copySeconds, threadedSeconds] = [median(times.plain), median(times.single), median(times.threaded)];
  const rate = (seconds: number) => `${Math.round(ROWS / seconds).toLocaleString("en")} rollouts/s`;
  const each = (xs: number[]) => `each round ${xs.map((x) => x.toFixed(2)).join(", ")} s`;
  console.log(`rollout ingest, ${ROWS.toLocaleString("en")} rollouts of ~${Math.round(JSON.stringify(rows[0]).length / 100) / 10} KB, medians of ${ROUNDS} rounds`);
  console.log(`  baseline  plain COPY of parsed rows                         ${rate(plainSeconds)}  (${plainSeconds.toFixed(2)} s; ${each(times.plain)})`);
  console.log(`  ingest    JSONL → zod → math catalog → COPY → labels      ${rate(copySeconds)}  (${copySeconds.toFixed(2)} s; ${each(times.single)})  ${(plainSeconds / copySeconds).toFixed(2)}× the plain COPY's rate, ${labels.toLocaleString("en")} labels`);
  console.log(`  threads   the same, detectors in ${pool.size} worker thread${pool.size === 1 ? " " : "s"} (${availableParallelism()} cores)  ${rate(threadedSeconds)}  (${threadedSeconds.toFixed(2)} s; ${each(times.threaded)})  ${(plainSeconds / threadedSeconds).toFixed(2)}× the plain COPY's rate, ${(copySeconds / threadedSeconds).toFixed(2)}× single-threaded; the pool started in ${poolStartSeconds.toFixed(2)} s, once per process, before`);
  console.log(`  other     prisma createMany (parsed rows, no labels)      ${rate(baselineSeconds)}  (${baselineSeconds.toFixed(2)} s)  ingest is ${(baselineSeconds / copySeconds).toFixed(2)}× faster`);
  console.log(`  re-ingest same file, all duplicates                       ${rate(reingestSeconds)}  (${reingestSeconds.toFixed(2)} s)`);
} finally {
  rmSync(dir, { recursive: true, force: true });
  await pgPool.end();
  await db.$disconnect();
  await database.drop();
}
