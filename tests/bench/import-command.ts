// npm run bench:import — `evotrainer import mini-swe-agent <dir>` timed as a user runs it: the built
// CLI as a whole process, start-up included, on the real SWE trajectories laid out as mini-swe-agent
// publishes a run (trajs/<id>/<id>.traj.json beside logs/<id>/report.json), against a plain COPY of
// the same rollouts into "Rollout" in the same run. Medians of several rounds, the two interleaved
// so that a busy moment of the machine hits both alike.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { miniSweAgentRollout, swebenchInstanceResult } from "@evotrainer/adapters";
import type { Rollout } from "@evotrainer/contract";
import { createDatabase } from "@evotrainer/db";
import { createIngestPool, plainCopyRollouts } from "@evotrainer/db/ingest";
import { createTestDatabase } from "@evotrainer/db/testing";
import { CLI } from "../support/cli.ts";
import { seedRunWithJob } from "../support/seed.ts";

const COPIES = Number(process.env.BENCH_COPIES ?? 2);
const ROUNDS = Number(process.env.EVO_BENCH_ROUNDS ?? 5);
const TARGET = 0.5;
const FIXTURE = new URL("../fixtures/real/mini-swe-agent-gemini-3-pro-dev150.jsonl.gz", import.meta.url);

const build = spawnSync(process.execPath, ["scripts/build-programs.mjs"], { stdio: "inherit" });
if (build.status !== 0) process.exit(build.status ?? 1);

interface Bundled {
  instance_id: string;
  traj: Record<string, unknown>;
  report: unknown;
}
const real = gunzipSync(readFileSync(FIXTURE)).toString("utf8").trim().split("\n").map((line) => JSON.parse(line) as Bundled);

// Each copy is another set of instances (another id), so none is the same trajectory as another.
// Each round imports its own directory of the same files: another path is another import.
const dir = mkdtempSync(join(tmpdir(), "evo-bench-import-"));
let bytes = 0;
const rows: Rollout[] = [];
for (let copy = 0; copy < COPIES; copy++) {
  for (const one of real) {
    const id = copy === 0 ? one.instance_id : `${one.instance_id}-copy${copy}`;
    const traj = JSON.stringify({ ...one.traj, instance_id: id });
    const report = JSON.stringify({ [id]: one.report });
    for (let round = 0; round < ROUNDS; round++) {
      const at = join(dir, `round-${round}`);
      mkdirSync(join(at, "trajs", id), { recursive: true });
      mkdirSync(join(at, "logs", id), { recursive: true });
      writeFileSync(join(at, "trajs", id, `${id}.traj.json`), traj);
      writeFileSync(join(at, "logs", id, "report.json"), report);
    }
    bytes += Buffer.byteLength(traj) + Buffer.byteLength(report);
    rows.push(miniSweAgentRollout(JSON.parse(traj), { where: id, report: new Map([[id, swebenchInstanceResult(one.report, id)]]) }));
  }
}
const megabytes = bytes / 1e6;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const database = await createTestDatabase();
const db = createDatabase(database.url);
const pool = createIngestPool(database.url);
try {
  const plainTimes: number[] = [];
  const commandTimes: number[] = [];
  let result: { rollouts: { added: number; resolved: number; withResult: number } } | undefined;
  for (let round = 0; round < ROUNDS; round++) {
    // Baseline: a plain COPY of the same rollouts, already parsed, into "Rollout" in one transaction.
    const plain = await seedRunWithJob(db, `plain-copy-${round}`);
    const client = await pool.connect();
    let started = performance.now();
    await client.query("BEGIN");
    for (let i = 0; i < rows.length; i += 100) {
      await plainCopyRollouts(client, { runId: plain.run.id, branchId: plain.branch.id, jobId: plain.job.id }, rows.slice(i, i + 100));
    }
    await client.query("COMMIT");
    plainTimes.push((performance.now() - started) / 1000);
    client.release();

    // The command, from spawn to exit: reading, joining the reports, labelling, COPY, summary.
    const config = mkdtempSync(join(tmpdir(), "evo-bench-import-config-"));
    started = performance.now();
    const run = spawnSync(process.execPath, [CLI, "import", "mini-swe-agent", join(dir, `round-${round}`), "--json"], {
      env: { ...process.env, DATABASE_URL: database.url, XDG_CONFIG_HOME: config },
      encoding: "utf8",
    });
    commandTimes.push((performance.now() - started) / 1000);
    if (run.status !== 0) throw new Error(`the import failed: ${run.stderr}`);
    result = JSON.parse(run.stdout) as { rollouts: { added: number; resolved: number; withResult: number } };
    if (result.rollouts.added !== rows.length) throw new Error(`the import added ${result.rollouts.added} of ${rows.length}`);
    if (result.rollouts.withResult !== rows.length) throw new Error(`the reports beside the trajectories joined ${result.rollouts.withResult} of ${rows.length}`);
  }

  const plainSeconds = median(plainTimes);
  const commandSeconds = median(commandTimes);
  const rounds = (times: number[]) => `each round ${times.map((t) => t.toFixed(2)).join(", ")} s`;
  const rate = (seconds: number) => `${(megabytes / seconds).toFixed(1).padStart(6)} MB/s  (${seconds.toFixed(2)} s)`;
  const ratio = plainSeconds / commandSeconds;
  console.log(`import of real SWE trajectories from the command: ${rows.length} trajectories (${real.length} real × ${COPIES}) in mini-swe-agent's layout, ${megabytes.toFixed(1)} MB, medians of ${ROUNDS} rounds`);
  console.log(`  baseline  plain COPY of the same rollouts, parsed             ${rate(plainSeconds)}  ${rounds(plainTimes)}`);
  console.log(`  command   evotrainer import mini-swe-agent <dir>, start-up in  ${rate(commandSeconds)}  ${ratio.toFixed(2)}× the plain COPY's rate, ${result!.rollouts.resolved} of ${result!.rollouts.withResult} resolved; ${rounds(commandTimes)}`);
  console.log(`  target    ≥ ${TARGET}× the plain COPY, end to end: ${ratio >= TARGET ? "met" : "NOT MET"}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
  await pool.end();
  await db.$disconnect();
  await database.drop();
}
