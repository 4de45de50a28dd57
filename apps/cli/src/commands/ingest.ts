import { statSync } from "node:fs";
import { resolve } from "node:path";
import pg from "pg";
import { compileHarness, runConfigOf } from "@evotrainer/core";
import { createDatabase, loadHarnessVersion } from "@evotrainer/db";
import { harnessLabeler, ingestRolloutFile } from "@evotrainer/db/ingest";
import { loadCliEnv } from "../env.ts";


/**
 * `evotrainer ingest <file.jsonl> --branch <id>`: loads rollouts written elsewhere into a branch,
 * labelled by the run's harness. Bad lines are quarantined and listed; running it again adds nothing.
 */
export async function ingestCommand(args: string[]): Promise<number> {
  const file = args.find((a, i) => !a.startsWith("--") && args[i - 1] !== "--branch");
  const branchId = args[args.indexOf("--branch") + 1];
  if (!file || args.indexOf("--branch") < 0 || !branchId) throw new Error("usage: evotrainer ingest <file.jsonl> --branch <branchId>");
  const path = resolve(file);
  const size = (() => {
    try {
      return statSync(path).size;
    } catch {
      throw new Error(`${file}: no such file`);
    }
  })();
  const env = loadCliEnv();
  const db = createDatabase(env.DATABASE_URL);
  const pool = new pg.Pool({ connectionString: env.DATABASE_URL, max: 2 });
  try {
    const branch = await db.branch.findUnique({ where: { id: branchId }, include: { run: true, recipe: true } });
    if (!branch) throw new Error(`no branch with id ${branchId}; \`evotrainer report <runId>\` lists a run's branches`);
    const config = runConfigOf(branch.run);
    const stored = await loadHarnessVersion(db, branch.run.harnessVersionId!);
    const compiled = compileHarness(stored.definition);
    if (!compiled.ok) throw new Error(`the run's harness does not compile: ${compiled.rejections.map((r) => r.message).join("; ")}`);
    const recipe = JSON.parse(branch.recipe.canonical) as { algo: { maxResponseTokens: number } };
    // An import is a job of its own, so its cursor and quarantined lines are kept apart from training's.
    const job =
      (await db.job.findFirst({ where: { branchId, externalId: `import:${path}` } })) ??
      (await db.job.create({ data: { branchId, kind: "train", executor: "local", adapter: config.adapter, state: "succeeded", externalId: `import:${path}`, message: `imported from ${path}` } }));
    const result = await ingestRolloutFile(
      pool,
      {
        owner: { runId: branch.runId, branchId, jobId: job.id },
        file: path,
        source: path,
        keepText: () => true,
        labeler: harnessLabeler(compiled.harness, stored.detectorRowIds, config.domain, recipe.algo.maxResponseTokens),
      },
      async () => {
        const cursor = await db.ingestCursor.findUnique({ where: { jobId_file: { jobId: job.id, file: path } } });
        const done = Number(cursor?.byteOffset ?? 0);
        process.stderr.write(`\ringest: ${Math.round((100 * done) / Math.max(1, size))}% of ${(size / 1e6).toFixed(1)} MB`);
      },
    );
    process.stderr.write("\n");
    console.log(`ingest: ${result.inserted} rollouts added, ${result.duplicates} already present, ${result.quarantined} lines quarantined`);
    const bad = await db.quarantinedLine.findMany({ where: { source: path }, orderBy: { lineNumber: "asc" }, take: 50 });
    for (const line of bad) console.log(`  ${path}:${line.lineNumber}: ${line.reason}`);
    return 0;
  } finally {
    await pool.end();
    await db.$disconnect();
  }
}
