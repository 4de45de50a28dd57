import { stat } from "node:fs/promises";
import type pg from "pg";
import { readJsonlFrom, type JsonlCursor } from "@evotrainer/contract";
import { headHash, resumeCursor } from "./file-cursor.ts";
import { prepareLines, storeLines, type IngestBatch, type IngestLinesInput } from "./ingest-lines.ts";

export interface IngestRolloutFileInput extends IngestLinesInput {
  /** Path of the JSONL file on this machine (executors pull remote files next to the control plane). */
  file: string;
  /** Bytes read per batch; each batch is one transaction. */
  batchBytes?: number;
}

export interface IngestResult {
  linesRead: number;
  inserted: number;
  duplicates: number;
  quarantined: number;
  /** Rows stored before whose result a line read again changed. */
  resultsChanged: number;
  byteOffset: number;
  /** The file no longer matched what was read before and was read again from its start. */
  rewritten: boolean;
}

/**
 * Streams a growing rollouts JSONL file into Postgres from where the last call stopped, one batch
 * per transaction (see ingestLines), the next batch prepared while one is stored: a crash anywhere
 * resumes exactly at the next line.
 */
export async function ingestRolloutFile(
  pool: pg.Pool,
  input: IngestRolloutFileInput,
  onBatch?: (client: pg.PoolClient, batch: IngestBatch) => Promise<void>,
): Promise<IngestResult> {
  const size = (await stat(input.file).catch(() => null))?.size ?? 0;
  const resumed = await resumeCursor(pool, input.owner.jobId, input.source, input.file, size);
  const result: IngestResult = { linesRead: 0, inserted: 0, duplicates: 0, quarantined: 0, resultsChanged: 0, byteOffset: 0, rewritten: resumed.rewritten };
  const batchBytes = input.batchBytes ?? 4 * 1024 * 1024;
  // Read, parse and label the batch after the one being stored: the CPU half runs while Postgres
  // works on the other (it needs no answer from it), so neither waits for the other.
  const prepare = async (from: JsonlCursor) => {
    const tail = await readJsonlFrom(input.file, { ...from, maxBytes: batchBytes });
    if (tail.nextOffset === from.byteOffset) return null;
    const next = { byteOffset: tail.nextOffset, lineNumber: tail.nextLineNumber, headHash: await headHash(input.file, tail.nextOffset) };
    return { tail, prepared: await prepareLines(input, { source: input.source, lines: tail.lines, next }) };
  };
  let cursor: JsonlCursor = { byteOffset: resumed.byteOffset, lineNumber: resumed.lineNumber };
  let pending = prepare(cursor);
  for (;;) {
    const ready = await pending;
    if (!ready) break;
    const { tail, prepared } = ready;
    const following: JsonlCursor = { byteOffset: tail.nextOffset, lineNumber: tail.nextLineNumber };
    pending = tail.hasMore ? prepare(following) : Promise.resolve(null);
    // An abandoned prefetch must not surface as an unhandled rejection if storing fails first.
    pending.catch(() => {});
    const stored = await storeLines(pool, input, prepared, onBatch);
    // One reader per file here: its cursor cannot move under it.
    if (stored.outcome !== "stored") throw new Error(`${input.source}: its ingest cursor moved while it was read`);
    result.inserted += stored.inserted;
    result.duplicates += stored.duplicates;
    result.quarantined += stored.quarantined;
    result.resultsChanged += stored.resultsChanged;
    result.linesRead += tail.lines.length;
    cursor = following;
  }
  result.byteOffset = cursor.byteOffset;
  return result;
}
