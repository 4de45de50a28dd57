import { writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import type pg from "pg";
import type { Database } from "@evotrainer/db";
import { writeTrainerMetrics, type BatchLabeler } from "@evotrainer/db/ingest";
import { ingestFileWithProgress } from "./branch-ingest.ts";
import type { ImportTarget } from "./import-target.ts";
import type { RunDirSource } from "./run-dir-source.ts";
import { stagedRolloutsJsonl } from "./staged-rollouts.ts";

export interface RunDirImport {
  source: RunDirSource;
  target: ImportTarget;
  labeler: BatchLabeler;
  adapter: "verl" | "trl";
  /** The run directory, for progress lines. */
  dir: string;
  /** A scratch directory for the JSONL each trainer file becomes. */
  staging: string;
}

export interface RunDirImported {
  rollouts: { added: number; alreadyPresent: number; quarantined: number; repeatedRows: number };
  points: { added: number; changed: number };
}

/** Ingests a run directory's rollout files (labelled, with their step aggregates) and trainer metrics into the target branch. */
export async function ingestRunDir(pool: pg.Pool, db: Database, input: RunDirImport): Promise<RunDirImported> {
  const { source, target } = input;
  const owner = { runId: target.runId, branchId: target.branchId, jobId: target.jobId };
  const rollouts = { added: 0, alreadyPresent: 0, quarantined: 0, repeatedRows: source.repeatedRows };
  for (const [i, file] of source.files.entries()) {
    // Ingest reads JSONL: each trainer file becomes one, line for line (see stagedRolloutsJsonl).
    const staged = join(input.staging, `${i}.jsonl`);
    const text = stagedRolloutsJsonl(file);
    writeFileSync(staged, text);
    const label = `import ${input.adapter}: [${i + 1}/${source.files.length}] ${relative(input.dir, file.source)}`;
    const result = await ingestFileWithProgress(pool, db, { owner, labeler: input.labeler, file: staged, source: file.source, label }, Buffer.byteLength(text));
    rollouts.added += result.inserted;
    rollouts.alreadyPresent += result.duplicates;
    rollouts.quarantined += result.quarantined;
  }
  const points = await writeTrainerMetrics(pool, target.branchId, source.metrics);
  return { rollouts, points };
}

/**
 * Runs an import's ingest; if it stops part-way, says that what was stored stays and that the same
 * command resumes (each file's cursor commits with its rows), rather than leaving the user to guess.
 */
export async function resumable<T>(target: ImportTarget, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(
      `${reason}\nthe import stopped part-way: what it stored so far is kept in branch ${target.branchId} of run ${target.runId}; ` +
        "fix the cause and run the same command again to resume where it stopped (nothing is added twice)",
    );
  }
}
