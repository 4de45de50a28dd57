// The ingest benchmark on real SWE trajectories (issue 13): the 150 mini-swe-agent SWE-bench runs of
// the shared fixture (about 115 KB of rollout JSON each), copied COPIES times under fresh uids, read
// from a JSONL file, validated, labelled with the whole swe catalog and stored (rows, labels,
// LabelStat, aggregates, cursor), against a plain COPY of the same parsed rows in the same run.
// Run: npm run bench:ingest-swe   (BENCH_COPIES=4 by default)
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { miniSweAgentRollout } from "@evotrainer/adapters";
import type { Rollout } from "@evotrainer/contract";
import { compileHarness, SWE_DETECTORS } from "@evotrainer/core";
import { createDatabase, registerHarnessVersion, loadHarnessVersion } from "@evotrainer/db";
import { createIngestPool, plainCopyRollouts, harnessLabeler, ingestRolloutFile } from "@evotrainer/db/ingest";
import { createTestDatabase } from "@evotrainer/db/testing";

const COPIES = Number(process.env.BENCH_COPIES ?? 4);
const TARGET_MB_S = 20;
const FIXTURE = new URL("../fixtures/real/mini-swe-agent-gemini-3-pro-dev150.jsonl.gz", import.meta.url);

const lines = gunzipSync(readFileSync(FIXTURE)).toString("utf8").trim().split("\n");
const real = lines.map((line, i) => miniSweAgentRollout(JSON.parse(line), { where: `line ${i + 1}` }));
const rows: Rollout[] = [];
for (let copy = 0; copy < COPIES; copy++) for (const r of real) rows.push({ ...r, uid: `${r.uid}#${copy}`, groupId: `${r.groupId}#${copy}` });
const text = rows.map((r) => `${JSON.stringify(r)}\n`).join("");
const megabytes = Buffer.byteLength(text) / 1e6;

async function owner(db: ReturnType<typeof createDatabase>, name: string) {
  const org = await db.organization.create({ data: { name, slug: `${name}-${process.pid}-${Math.random()}` } });
  const run = await db.run.create({ data: { organizationId: org.id, name, domain: "swe", basePolicy: "b", settings: {}, evaluationProtocol: {}, autonomyPolicy: {}, budget: {} } });
  const recipe = await db.recipe.upsert({ where: { hash: "bench" }, update: {}, create: { hash: "bench", canonical: "{}" } });
  const branch = await db.branch.create({ data: { runId: run.id, version: 0, round: 0, recipeId: recipe.id } });
  const job = await db.job.create({ data: { branchId: branch.id, executor: "local", adapter: "gym" } });
  return { runId: run.id, branchId: branch.id, jobId: job.id };
}

const database = await createTestDatabase();
const db = createDatabase(database.url);
const pool = createIngestPool(database.url);
const dir = mkdtempSync(join(tmpdir(), "evo-bench-swe-"));
try {
  const file = join(dir, "trajectories.jsonl");
  writeFileSync(file, text);

  // Baseline: a plain COPY of the already-parsed rows straight into "Rollout", in one transaction.
  const plain = await owner(db, "plain");
  const client = await pool.connect();
  let started = performance.now();
  await client.query("BEGIN");
  for (let i = 0; i < rows.length; i += 100) await plainCopyRollouts(client, plain, rows.slice(i, i + 100));
  await client.query("COMMIT");
  const plainSeconds = (performance.now() - started) / 1000;
  client.release();

  const labelled = await owner(db, "ingest");
  const compiled = compileHarness({ version: 1, detectors: [...SWE_DETECTORS], healthRules: [] });
  if (!compiled.ok) throw new Error("the swe catalog does not compile");
  const harnessId = await db.$transaction((tx) => registerHarnessVersion(tx, { runId: labelled.runId, parentId: null, version: 1, domain: "swe", definition: compiled.harness.definition }));
  const { detectorRowIds } = await loadHarnessVersion(db, harnessId);
  const labeler = harnessLabeler(compiled.harness, detectorRowIds, "swe", 65_536);
  started = performance.now();
  const result = await ingestRolloutFile(pool, { owner: labelled, file, source: "trajectories.jsonl", keepText: () => true, labeler });
  const ingestSeconds = (performance.now() - started) / 1000;
  if (result.inserted !== rows.length) throw new Error(`ingest stored ${result.inserted} of ${rows.length} (${result.quarantined} quarantined)`);
  const labels = await db.rolloutLabel.count({ where: { branchId: labelled.branchId } });

  const rate = (seconds: number) => `${(megabytes / seconds).toFixed(1).padStart(6)} MB/s  ${Math.round(rows.length / seconds).toLocaleString("en").padStart(6)} rollouts/s  (${seconds.toFixed(2)} s)`;
  const ingestRate = megabytes / ingestSeconds;
  console.log(`ingest of real SWE trajectories: ${rows.length} rollouts (${real.length} real × ${COPIES}), ${megabytes.toFixed(1)} MB, ~${Math.round((megabytes * 1000) / rows.length)} KB each, one ingest process`);
  console.log(`  baseline  plain COPY of the parsed rows                        ${rate(plainSeconds)}`);
  console.log(`  ingest    JSONL → zod → swe catalog → COPY → labels, LabelStat  ${rate(ingestSeconds)}  ${(plainSeconds / ingestSeconds).toFixed(2)}× the plain COPY's rate, ${labels} labels`);
  console.log(`  target    ≥ ${TARGET_MB_S} MB/s including labelling: ${ingestRate >= TARGET_MB_S ? "met" : "NOT MET"} (${ingestRate.toFixed(1)} MB/s)`);
} finally {
  rmSync(dir, { recursive: true, force: true });
  await pool.end();
  await db.$disconnect();
  await database.drop();
}
