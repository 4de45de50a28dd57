import { statSync } from "node:fs";
import { resolve } from "node:path";
import pg from "pg";
import { createDatabase } from "@evotrainer/db";
import { branchLabeler, importJob, ingestFileWithProgress, quarantinedLines } from "../branch-ingest.ts";
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
    const { runId, config, labeler } = await branchLabeler(db, branchId);
    const job = await importJob(db, { branchId, externalId: `import:${path}`, adapter: config.adapter, message: `imported from ${path}` });
    const owner = { runId, branchId, jobId: job.id };
    const result = await ingestFileWithProgress(pool, db, { owner, labeler, file: path, source: path, label: "ingest" }, size);
    if (result.rewritten) console.log(`ingest: ${file} changed since it was last read; it was read again from the start (rows already present were skipped)`);
    console.log(`ingest: ${result.inserted} rollouts added, ${result.duplicates} already present, ${result.quarantined} lines quarantined`);
    for (const line of await quarantinedLines(db, job.id, [path])) console.log(`  ${path}:${line.lineNumber}: ${line.reason}`);
    return 0;
  } finally {
    await pool.end();
    await db.$disconnect();
  }
}
