import type pg from "pg";
import { compileHarness, runConfigOf, type RunConfig } from "@evotrainer/core";
import { loadHarnessVersion, type Database, type Tx } from "@evotrainer/db";
import { harnessLabeler, ingestRolloutFile, type BatchLabeler, type IngestResult } from "@evotrainer/db/ingest";

/**
 * The run's harness as ingest runs it on rollouts added to one of its branches: the run's current
 * harness version, the run's domain, and the branch recipe's length limit.
 */
export async function branchLabeler(db: Database, branchId: string): Promise<{ runId: string; config: RunConfig; labeler: BatchLabeler }> {
  const branch = await db.branch.findUnique({ where: { id: branchId }, include: { run: true, recipe: true } });
  if (!branch) throw new Error(`no branch with id ${branchId}; \`evotrainer report <runId>\` lists a run's branches`);
  const config = runConfigOf(branch.run);
  const stored = await loadHarnessVersion(db, branch.run.harnessVersionId!);
  const compiled = compileHarness(stored.definition);
  if (!compiled.ok) throw new Error(`the run's harness does not compile: ${compiled.rejections.map((r) => r.message).join("; ")}`);
  const recipe = JSON.parse(branch.recipe.canonical) as { algo: { maxResponseTokens: number } };
  return { runId: branch.runId, config, labeler: harnessLabeler(compiled.harness, stored.detectorRowIds, config.domain, recipe.algo.maxResponseTokens) };
}

/**
 * The job an import's rows belong to, found by what was imported (`externalId`) or created once.
 * An import is a job of its own, so its cursors and quarantined lines are kept apart from training's.
 */
export async function importJob(
  db: Database | Tx,
  input: { branchId: string; externalId: string; adapter: RunConfig["adapter"]; message: string },
): Promise<{ id: string; created: boolean }> {
  const found = await db.job.findFirst({ where: { branchId: input.branchId, externalId: input.externalId } });
  if (found) return { id: found.id, created: false };
  const job = await db.job.create({
    data: { branchId: input.branchId, kind: "train", executor: "local", adapter: input.adapter, state: "succeeded", externalId: input.externalId, message: input.message },
  });
  return { id: job.id, created: true };
}

export interface IngestFileInput {
  owner: { runId: string; branchId: string; jobId: string };
  labeler: BatchLabeler;
  /** The JSONL file to read. */
  file: string;
  /** What its cursor and quarantined lines are recorded under, and listed as. */
  source: string;
  /** Prefix of the progress line on stderr. */
  label: string;
}

/** Ingests one rollouts JSONL file into a branch, every line kept whole, with a progress line on stderr. */
export async function ingestFileWithProgress(pool: pg.Pool, db: Database, input: IngestFileInput, size: number): Promise<IngestResult> {
  const progress = (done: number) => process.stderr.write(`\r${input.label}: ${Math.round((100 * done) / Math.max(1, size))}% of ${(size / 1e6).toFixed(1)} MB`);
  const result = await ingestRolloutFile(pool, { owner: input.owner, file: input.file, source: input.source, keepText: () => true, labeler: input.labeler }, async () => {
    // The batch's own cursor commits with it, after this: the line shows where the batch began.
    const cursor = await db.ingestCursor.findUnique({ where: { jobId_file: { jobId: input.owner.jobId, file: input.source } } });
    progress(Number(cursor?.byteOffset ?? 0));
  });
  progress(result.byteOffset);
  process.stderr.write("\n");
  return result;
}

/** Quarantined lines of one import's sources, in file and line order (at most `take`). */
export async function quarantinedLines(db: Database, jobId: string, sources: readonly string[], take = 50): Promise<{ source: string; lineNumber: number; reason: string }[]> {
  return db.quarantinedLine.findMany({
    where: { jobId, source: { in: [...sources] } },
    orderBy: [{ source: "asc" }, { lineNumber: "asc" }],
    take,
    select: { source: true, lineNumber: true, reason: true },
  });
}
