import type pg from "pg";
import { parseJsonlLine, readJsonlFrom, rolloutSchema, type Rollout } from "@evotrainer/contract";
import type { BatchLabeler } from "./batch-labels.ts";
import { writeBatchLabels } from "./batch-labels.ts";
import { copyRollouts, type RolloutOwner } from "./copy-rollouts.ts";

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
}

const RAW_SNIPPET_CHARS = 2_000;

/**
 * Streams a growing rollouts JSONL file into Postgres from where the last call stopped. Each batch
 * commits its rows, its quarantined lines and the advanced cursor in one transaction, so a crash
 * between batches resumes exactly at the next line, and a re-read line is never inserted twice.
 * `onBatch` runs inside the transaction (e.g. to write labels for the inserted rows).
 */
export async function ingestRolloutFile(
  pool: pg.Pool,
  input: IngestRolloutFileInput,
  onBatch?: (client: pg.PoolClient, batch: IngestBatch) => Promise<void>,
): Promise<IngestResult> {
  const result: IngestResult = { linesRead: 0, inserted: 0, duplicates: 0, quarantined: 0, byteOffset: 0 };
  const { rows } = await pool.query<{ byteOffset: string; lineNumber: number }>(
    `SELECT "byteOffset"::text AS "byteOffset", "lineNumber" FROM "IngestCursor" WHERE "jobId" = $1 AND "file" = $2`,
    [input.owner.jobId, input.source],
  );
  let cursor = { byteOffset: Number(rows[0]?.byteOffset ?? 0), lineNumber: rows[0]?.lineNumber ?? 0 };

  for (;;) {
    const tail = await readJsonlFrom(input.file, { ...cursor, maxBytes: input.batchBytes ?? 4 * 1024 * 1024 });
    if (tail.nextOffset === cursor.byteOffset) break;

    const good: Rollout[] = [];
    const bad: { lineNumber: number; reason: string; raw: string }[] = [];
    for (const line of tail.lines) {
      const parsed = parseJsonlLine(line.text, rolloutSchema);
      if (parsed.ok) good.push(parsed.value);
      else bad.push({ lineNumber: line.lineNumber, reason: parsed.reason, raw: line.text.slice(0, RAW_SNIPPET_CHARS) });
    }

    const labels = (await input.labeler?.label(good)) ?? [];
    const flagged = new Set(labels.map((l) => l.rolloutUid));
    const client = await pool.connect();
    try {
      await client.query("BEGIN");
      const inserted = await copyRollouts(client, input.owner, good, (r) => flagged.has(r.uid) || input.keepText(r));
      if (bad.length > 0) {
        await client.query(
          `INSERT INTO "QuarantinedLine" (id, "runId", "branchId", "jobId", source, "lineNumber", reason, raw)
           SELECT gen_random_uuid()::text, $1, $2, $3, $4, q."lineNumber", q.reason, q.raw
             FROM jsonb_to_recordset($5::jsonb) AS q("lineNumber" int, reason text, raw text)
           ON CONFLICT (source, "lineNumber") DO NOTHING`,
          [input.owner.runId, input.owner.branchId, input.owner.jobId, input.source, JSON.stringify(bad)],
        );
      }
      const byUid = new Map(good.map((r) => [r.uid, r]));
      const batch = { inserted: inserted.map((row) => ({ ...row, rollout: byUid.get(row.uid)! })), quarantined: bad.length };
      if (input.labeler) await writeBatchLabels(client, input.owner.branchId, input.labeler, batch.inserted, labels);
      await onBatch?.(client, batch);
      await client.query(
        `INSERT INTO "IngestCursor" (id, "jobId", file, "byteOffset", "lineNumber", "updatedAt")
         VALUES (gen_random_uuid()::text, $1, $2, $3, $4, now())
         ON CONFLICT ("jobId", file) DO UPDATE SET "byteOffset" = EXCLUDED."byteOffset", "lineNumber" = EXCLUDED."lineNumber", "updatedAt" = now()`,
        [input.owner.jobId, input.source, tail.nextOffset, tail.nextLineNumber],
      );
      await client.query("COMMIT");
      result.inserted += inserted.length;
      result.duplicates += good.length - inserted.length;
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
