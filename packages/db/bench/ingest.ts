// npm run bench -w @evotrainer/db — rollout ingest throughput: the streaming COPY path (read,
// validate, COPY, ON CONFLICT) against Prisma's createMany, measured in the same run on the same rows.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import type { Rollout } from "@evotrainer/contract";
import { createDatabase } from "../src/client.ts";
import { ingestRolloutFile } from "../src/ingest/ingest-rollout-file.ts";
import { createTestDatabase } from "../src/testing/test-database.ts";

const ROWS = Number(process.env.BENCH_ROWS ?? 20_000);
const response = "Let me think step by step. ".repeat(40) + "\\boxed{42}";

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
const pool = new pg.Pool({ connectionString: database.url, max: 2 });
const dir = mkdtempSync(join(tmpdir(), "evo-bench-"));
try {
  const rows = Array.from({ length: ROWS }, (_, i) => rollout(i));
  const file = join(dir, "step_1.jsonl");
  writeFileSync(file, rows.map((r) => `${JSON.stringify(r)}\n`).join(""));

  // Baseline: the ORM's own bulk insert of already-parsed rows, in chunks of 1,000.
  const baselineOwner = await seed(db);
  let started = performance.now();
  for (let i = 0; i < rows.length; i += 1_000) {
    await db.rollout.createMany({
      data: rows.slice(i, i + 1_000).map(({ trajectory: _t, groundTruth: _g, testResults: _r, extra: _e, ...r }) => ({ ...r, ...baselineOwner })),
      skipDuplicates: true,
    });
  }
  const baselineSeconds = (performance.now() - started) / 1000;

  // Candidate: from the JSONL file on disk, including reading and zod validation of every line.
  const owner = await seed(db);
  started = performance.now();
  const result = await ingestRolloutFile(pool, { owner, file, source: "rollouts/train/step_1.jsonl", keepText: () => true });
  const copySeconds = (performance.now() - started) / 1000;
  if (result.inserted !== ROWS) throw new Error(`COPY ingest inserted ${result.inserted} of ${ROWS}`);

  started = performance.now();
  await db.ingestCursor.deleteMany({ where: { jobId: owner.jobId } });
  const again = await ingestRolloutFile(pool, { owner, file, source: "rollouts/train/step_1.jsonl", keepText: () => true });
  const reingestSeconds = (performance.now() - started) / 1000;
  if (again.inserted !== 0) throw new Error("re-ingest duplicated rows");

  const rate = (seconds: number) => `${Math.round(ROWS / seconds).toLocaleString("en")} rollouts/s`;
  console.log(`rollout ingest, ${ROWS.toLocaleString("en")} rollouts of ~${Math.round(JSON.stringify(rows[0]).length / 100) / 10} KB`);
  console.log(`  baseline  prisma createMany (parsed rows)        ${rate(baselineSeconds)}  (${baselineSeconds.toFixed(2)} s)`);
  console.log(`  ingest    JSONL → zod → COPY → ON CONFLICT       ${rate(copySeconds)}  (${copySeconds.toFixed(2)} s)  ×${(baselineSeconds / copySeconds).toFixed(2)} vs baseline`);
  console.log(`  re-ingest same file, all duplicates               ${rate(reingestSeconds)}  (${reingestSeconds.toFixed(2)} s)`);
} finally {
  rmSync(dir, { recursive: true, force: true });
  await pool.end();
  await db.$disconnect();
  await database.drop();
}
