import type pg from "pg";
import type { Database } from "@evotrainer/db";
import { ingestRolloutFile, type BatchLabeler, type IngestResult } from "@evotrainer/db/ingest";

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
  const progress = byteProgress(input.label, size);
  const result = await ingestRolloutFile(pool, { owner: input.owner, file: input.file, source: input.source, keepText: () => true, labeler: input.labeler }, async () => {
    // The batch's own cursor commits with it, after this: the line shows where the batch began.
    const cursor = await db.ingestCursor.findUnique({ where: { jobId_file: { jobId: input.owner.jobId, file: input.source } } });
    progress(Number(cursor?.byteOffset ?? 0));
  });
  progress(result.byteOffset, true);
  return result;
}

/** A progress line on stderr for reading `size` bytes, redrawn in place; `last` ends it. */
export function byteProgress(label: string, size: number): (done: number, last?: boolean) => void {
  return (done, last = false) => process.stderr.write(`\r${label}: ${Math.round((100 * done) / Math.max(1, size))}% of ${(size / 1e6).toFixed(1)} MB${last ? "\n" : ""}`);
}
