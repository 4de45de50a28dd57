import { stat } from "node:fs/promises";
import type pg from "pg";
import { parseJsonlLine, readJsonlFrom, rolloutSchema, type Rollout } from "@evotrainer/contract";
import type { BatchLabeler } from "./batch-labels.ts";
import { writeBatchLabels } from "./batch-labels.ts";
import { copyRollouts, type RolloutOwner } from "./copy-rollouts.ts";
import { resumeCursor, saveCursor } from "./file-cursor.ts";
import { storableRollout } from "./sanitize-text.ts";
import { refreshStepAggregates } from "./step-aggregates.ts";

export interface IngestRolloutFileInput {
  owner: RolloutOwner & { jobId: string };
  /** Path of the JSONL file on this machine (executors pull remote files next to the control plane). */
  file: string;
  /** The name the cursor and quarantined lines are recorded under (the file's path in the job's output dir). */
  source: string;
  /** Whether to keep the text of a rollout no detector flagged (eval, a sample of the rest); flagged ones always keep it. */
  keepText: (rollout: Rollout) => boolean;
  /** Detectors to run on each batch before it is stored; their labels and LabelStat counts commit with it. */
  labeler?: BatchLabeler;
  /** Bytes read per batch; each batch is one transaction. */
  batchBytes?: number;
}

export interface IngestBatch {
  inserted: { id: bigint; uid: string; rollout: Rollout }[];
  quarantined: number;
}

export interface IngestResult {
  linesRead: number;
  inserted: number;
  duplicates: number;
  quarantined: number;
  byteOffset: number;
  /** The file no longer matched what was read before and was read again from its start. */
  rewritten: boolean;
}

interface Line {
  lineNumber: number;
  text: string;
  rollout: Rollout;
}

interface BadLine {
  lineNumber: number;
  reason: string;
  raw: string;
}

const RAW_SNIPPET_CHARS = 2_000;

/**
 * Streams a growing rollouts JSONL file into Postgres from where the last call stopped. Each batch
 * commits its rows, their labels, LabelStat counts, the steps' aggregates (MetricPoints), its
 * quarantined lines and the advanced cursor in one transaction: a crash anywhere resumes exactly at
 * the next line, a re-read line is never inserted twice, and nothing derived can fall behind the rows.
 * A line the schema or the database refuses is quarantined with its line number and never aborts the
 * file. `onBatch` runs inside the transaction.
 */
export async function ingestRolloutFile(
  pool: pg.Pool,
  input: IngestRolloutFileInput,
  onBatch?: (client: pg.PoolClient, batch: IngestBatch) => Promise<void>,
): Promise<IngestResult> {
  const size = (await stat(input.file).catch(() => null))?.size ?? 0;
  const resumed = await resumeCursor(pool, input.owner.jobId, input.source, input.file, size);
  const result: IngestResult = { linesRead: 0, inserted: 0, duplicates: 0, quarantined: 0, byteOffset: 0, rewritten: resumed.rewritten };
  let cursor = { byteOffset: resumed.byteOffset, lineNumber: resumed.lineNumber };

  for (;;) {
    const tail = await readJsonlFrom(input.file, { ...cursor, maxBytes: input.batchBytes ?? 4 * 1024 * 1024 });
    if (tail.nextOffset === cursor.byteOffset) break;

    const good: Line[] = [];
    const bad: BadLine[] = [];
    for (const line of tail.lines) {
      const parsed = parseJsonlLine(line.text, rolloutSchema);
      if (parsed.ok) good.push({ lineNumber: line.lineNumber, text: line.text, rollout: storableRollout(parsed.value, line.text, line.invalidUtf8) });
      else bad.push({ lineNumber: line.lineNumber, reason: parsed.reason, raw: line.text.slice(0, RAW_SNIPPET_CHARS) });
    }

    const labels = (await input.labeler?.label(good.map((g) => g.rollout))) ?? [];
    const flagged = new Set(labels.map((l) => l.rolloutUid));
    const keepText = (r: Rollout) => flagged.has(r.uid) || input.keepText(r);
    const client = await pool.connect();
    try {
      await client.query("BEGIN");
      const { inserted, refused } = await copyOrQuarantine(client, input.owner, good, keepText);
      bad.push(...refused);
      await quarantine(client, input, bad);
      const byUid = new Map(good.map((g) => [g.rollout.uid, g.rollout]));
      const batch = { inserted: inserted.map((row) => ({ ...row, rollout: byUid.get(row.uid)! })), quarantined: bad.length };
      if (input.labeler) await writeBatchLabels(client, input.owner.branchId, input.labeler, batch.inserted, labels);
      await refreshStepAggregates(client, input.owner.branchId, touchedSteps(batch.inserted.map((row) => row.rollout)));
      await onBatch?.(client, batch);
      await saveCursor(client, input.owner.jobId, input.source, input.file, { byteOffset: tail.nextOffset, lineNumber: tail.nextLineNumber });
      await client.query("COMMIT");
      result.inserted += inserted.length;
      result.duplicates += good.length - refused.length - inserted.length;
      result.quarantined += bad.length;
      result.linesRead += tail.lines.length;
    } catch (error) {
      await client.query("ROLLBACK");
      throw error;
    } finally {
      client.release();
    }
    cursor = { byteOffset: tail.nextOffset, lineNumber: tail.nextLineNumber };
    if (!tail.hasMore) break;
  }
  result.byteOffset = cursor.byteOffset;
  return result;
}

function touchedSteps(rollouts: readonly Rollout[]): { split: string; step: number }[] {
  const keys = new Map(rollouts.map((r) => [`${r.split}|${r.step}`, { split: r.split, step: r.step }]));
  return [...keys.values()];
}

// SQLSTATE classes 22 (data exception) and 23 (integrity constraint): the row, not the connection, is at fault.
function refusedByDatabase(error: unknown): error is Error & { code: string } {
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" && (code.startsWith("22") || code.startsWith("23"));
}

/**
 * Copies the batch in one statement; if the database refuses a row, finds which ones row by row (each
 * under a savepoint) and returns them to be quarantined, so one bad row never costs the others.
 */
async function copyOrQuarantine(
  client: pg.PoolClient,
  owner: RolloutOwner,
  lines: readonly Line[],
  keepText: (rollout: Rollout) => boolean,
): Promise<{ inserted: { id: bigint; uid: string }[]; refused: BadLine[] }> {
  await client.query("SAVEPOINT batch");
  try {
    return { inserted: await copyRollouts(client, owner, lines.map((l) => l.rollout), keepText), refused: [] };
  } catch (error) {
    if (!refusedByDatabase(error)) throw error;
    await client.query("ROLLBACK TO SAVEPOINT batch");
  }
  const inserted: { id: bigint; uid: string }[] = [];
  const refused: BadLine[] = [];
  for (const line of lines) {
    await client.query("SAVEPOINT row");
    try {
      inserted.push(...(await copyRollouts(client, owner, [line.rollout], keepText)));
      await client.query("RELEASE SAVEPOINT row");
    } catch (error) {
      if (!refusedByDatabase(error)) throw error;
      await client.query("ROLLBACK TO SAVEPOINT row");
      refused.push({ lineNumber: line.lineNumber, reason: `the database refused it: ${error.message}`, raw: line.text.slice(0, RAW_SNIPPET_CHARS) });
    }
  }
  return { inserted, refused };
}

async function quarantine(client: pg.PoolClient, input: IngestRolloutFileInput, bad: readonly BadLine[]): Promise<void> {
  if (bad.length === 0) return;
  await client.query(
    `INSERT INTO "QuarantinedLine" (id, "runId", "branchId", "jobId", source, "lineNumber", reason, raw)
     SELECT gen_random_uuid()::text, $1, $2, $3, $4, q."lineNumber", q.reason, q.raw
       FROM jsonb_to_recordset($5::jsonb) AS q("lineNumber" int, reason text, raw text)
     ON CONFLICT ("jobId", source, "lineNumber") DO NOTHING`,
    [input.owner.runId, input.owner.branchId, input.owner.jobId, input.source, JSON.stringify(bad)],
  );
}
