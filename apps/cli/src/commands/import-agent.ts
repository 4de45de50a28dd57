import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { runConfigOf, type RunConfig } from "@evotrainer/core";
import { createDatabase, type Database } from "@evotrainer/db";
import { branchLabeler, ingestFileWithProgress, quarantinedLines } from "../branch-ingest.ts";
import { parseAgentImportArgs } from "../agent-import-options.ts";
import { readRunConfig } from "../config-files.ts";
import { loadCliEnv } from "../env.ts";
import { importTarget } from "../import-target.ts";
import { stagedRolloutsJsonl } from "../staged-rollouts.ts";
import { readSwebenchReport, readTrajectoryFile, trajectoryFiles } from "../trajectory-source.ts";
import type { RunDirFile } from "../run-dir-source.ts";

const DEFAULT_CONFIG = fileURLToPath(new URL("../../../../examples/imported-swe.yaml", import.meta.url));

/**
 * A line the format could not read, quarantined at its file and line with the importer's reason
 * (ingest never sees it: its own reason would only say the row is not a rollout).
 */
async function quarantineUnreadable(db: Database, owner: { runId: string; branchId: string; jobId: string }, file: RunDirFile): Promise<void> {
  if (file.unreadable.length === 0) return;
  await db.quarantinedLine.createMany({
    data: file.unreadable.map((u) => ({ ...owner, source: file.source, lineNumber: u.lineNumber, reason: u.reason, raw: u.raw })),
    skipDuplicates: true,
  });
}

/**
 * `evotrainer import mini-swe-agent|swe-agent|openai-chat <path>`: agent trajectories a team already
 * has (a file, or a directory searched for the format's files) become a branch labelled by the run's
 * harness, through the same path as `import verl|trl`. With `--report`, SWE-bench's results join by
 * instance id (reward 1 when resolved, the FAIL_TO_PASS / PASS_TO_PASS counts). With neither `--run`
 * nor `--config`, the run is created from examples/imported-swe.yaml.
 */
export async function importAgentCommand(args: string[]): Promise<number> {
  const options = parseAgentImportArgs(args);
  const path = resolve(options.path);
  const files = trajectoryFiles(options.format, path);
  const report = options.report ? readSwebenchReport(resolve(options.report)) : undefined;
  const say = (line: string) => process.stderr.write(`import ${options.format}: ${line}\n`);

  const env = loadCliEnv();
  const db = createDatabase(env.DATABASE_URL);
  const pool = new pg.Pool({ connectionString: env.DATABASE_URL, max: 2 });
  const staging = mkdtempSync(join(tmpdir(), "evotrainer-import-"));
  try {
    let where: { runId: string; adapter: RunConfig["adapter"] } | { config: RunConfig; adapter: RunConfig["adapter"] };
    if (options.run) {
      const run = await db.run.findUnique({ where: { id: options.run } });
      if (!run) throw new Error(`no run with id ${options.run}; \`evotrainer status\` shows the latest`);
      where = { runId: run.id, adapter: runConfigOf(run).adapter };
    } else {
      const config = readRunConfig(options.config ?? DEFAULT_CONFIG);
      if (!options.config) config.name = `${options.format} ${basename(path)}`;
      where = { config, adapter: config.adapter };
    }
    say(`reading ${files.length} file${files.length === 1 ? "" : "s"} under ${path}${report ? `, results of ${report.size} instances from ${options.report}` : ""}`);
    const target = await importTarget(db, { format: options.format, dir: path, ...where });
    say(`${target.created ? "new" : "existing"} branch v${target.branchVersion} (${target.branchId}) of run ${target.runId}`);
    const { labeler } = await branchLabeler(db, target.branchId);
    const owner = { runId: target.runId, branchId: target.branchId, jobId: target.jobId };

    const rollouts = { added: 0, alreadyPresent: 0, quarantined: 0, resolved: 0, withResult: 0 };
    // Runs of the same task are one group, numbered in the order read (files by name, then lines).
    const samples = new Map<string, number>();
    for (const [i, source] of files.entries()) {
      const file = readTrajectoryFile(options.format, source, relative(path, source) || basename(source), report);
      for (const { rollout } of file.rows) {
        rollout.sample = samples.get(rollout.taskId) ?? 0;
        samples.set(rollout.taskId, rollout.sample + 1);
        if (typeof rollout.extra?.["resolved"] !== "boolean") continue;
        rollouts.withResult += 1;
        if (rollout.extra["resolved"]) rollouts.resolved += 1;
      }
      await quarantineUnreadable(db, owner, file);
      rollouts.quarantined += file.unreadable.length;
      const staged = join(staging, `${i}.jsonl`);
      const text = stagedRolloutsJsonl({ ...file, unreadable: [] });
      writeFileSync(staged, text);
      const label = `import ${options.format}: [${i + 1}/${files.length}] ${relative(path, source) || basename(source)}`;
      const result = await ingestFileWithProgress(pool, db, { owner, labeler, file: staged, source, label }, Buffer.byteLength(text));
      rollouts.added += result.inserted;
      rollouts.alreadyPresent += result.duplicates;
      rollouts.quarantined += result.quarantined;
    }

    const quarantined = await quarantinedLines(db, target.jobId, files);
    const labelCounts = await db.rolloutLabel.groupBy({ by: ["label"], where: { branchId: target.branchId }, _count: { _all: true }, orderBy: { label: "asc" } });
    const labels = Object.fromEntries(labelCounts.map((l) => [l.label, l._count._all]));
    if (options.json) {
      console.log(JSON.stringify({
        format: options.format, path, files: files.length, ...target, rollouts, labels,
        quarantined: quarantined.map((q) => ({ file: q.source, line: q.lineNumber, reason: q.reason })),
      }, null, 2));
      return 0;
    }
    console.log(
      `import ${options.format}: ${rollouts.added} rollouts added, ${rollouts.alreadyPresent} already present, ${rollouts.quarantined} quarantined; ` +
        `${rollouts.withResult > 0 ? `${rollouts.resolved} of ${rollouts.withResult} with a result resolved` : "no SWE-bench results joined (--report)"}`,
    );
    console.log(`branch v${target.branchVersion} ${target.branchId} of run ${target.runId}${target.created ? " (new, awaiting a decision)" : ""}`);
    console.log(`labels: ${Object.entries(labels).map(([l, n]) => `${l} ${n}`).join(", ") || "none"}`);
    if (quarantined.length > 0) console.log("quarantined:");
    for (const q of quarantined) console.log(`  ${q.source}:${q.lineNumber}: ${q.reason}`);
    console.log(`next: \`evotrainer report ${target.runId}\`; the dashboard shows the branch's rollouts and labels`);
    return 0;
  } finally {
    rmSync(staging, { recursive: true, force: true });
    await pool.end();
    await db.$disconnect();
  }
}
