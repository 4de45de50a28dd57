import { relative } from "node:path";
import type { ImportTarget } from "@evotrainer/db";
import type { ImportSink } from "./import-sink.ts";
import type { RunDirSource } from "./run-dir-source.ts";
import { stagedRolloutLines } from "./staged-rollouts.ts";

export interface RunDirImport {
  source: RunDirSource;
  target: ImportTarget;
  adapter: "verl" | "trl";
  /** The run directory, for progress lines. */
  dir: string;
}

export interface RunDirImported {
  rollouts: { added: number; alreadyPresent: number; quarantined: number; resultsChanged: number; repeatedRows: number };
  points: { added: number; changed: number };
}

/** Ingests a run directory's rollout files (labelled, with their step aggregates) and trainer metrics into the target branch. */
export async function ingestRunDir(sink: ImportSink, input: RunDirImport): Promise<RunDirImported> {
  const { source, target } = input;
  // Ingest reads JSONL: each trainer file becomes one, line for line; an unreadable line stays as it was, for ingest to quarantine.
  const staged = source.files.map((file, i) => ({
    source: file.source,
    ...stagedRolloutLines(file),
    unreadable: [],
    label: `import ${input.adapter}: [${i + 1}/${source.files.length}] ${relative(input.dir, file.source)}`,
  }));
  const result = await sink.rollouts(target, staged);
  const rollouts = { added: result.inserted, alreadyPresent: result.duplicates, quarantined: result.quarantined, resultsChanged: result.resultsChanged, repeatedRows: source.repeatedRows };
  const points = await sink.metrics(target, source.metrics);
  return { rollouts, points };
}

/**
 * Runs an import's ingest; if it stops part-way, says that what was stored stays and that the same
 * command resumes (each file's cursor commits with its rows), rather than leaving the user to guess.
 * A new import that stopped before it stored anything takes back the run or branch it created.
 */
export async function resumable<T>(sink: ImportSink, target: ImportTarget, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    // The server may be what went away: then the empty branch stays, and the next try lands in it.
    if (target.created && (await sink.discard(target).catch(() => false))) {
      throw new Error(`${reason}
the import stopped before it stored anything, so it created nothing; fix the cause and run the same command again`);
    }
    throw new Error(
      `${reason}\nthe import stopped part-way: what it stored so far is kept in branch ${target.branchId} of run ${target.runId}; ` +
        "fix the cause and run the same command again to resume where it stopped (nothing is added twice)",
    );
  }
}
