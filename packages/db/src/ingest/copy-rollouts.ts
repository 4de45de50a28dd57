import type pg from "pg";
import type { Rollout } from "@evotrainer/contract";
import { copyCsv, csvLine, csvLineParts, CsvLines, type JsonText } from "./csv.ts";

export interface RolloutOwner {
  runId: string;
  branchId: string;
  jobId: string | null;
}

/** Columns of rolloutCsvLine's lines, in COPY order. */
const lineColumns = [
  "runId", "branchId", "jobId", "split", "step", "taskId", "groupId", "sample", "reward",
  "rewardComponents", "responseTokens", "turns", "finishReason", "truncated", "prompt", "response",
  "trajectory", "groundTruth", "testResults", "extra", "uid", "advantage", "tokens",
] as const;

const quotedLine = lineColumns.map((c) => `"${c}"`).join(", ");
/** The columns COPY fills: the id, then the line's. */
const quoted = `"id", ${quotedLine}`;

/** JSON written before of a rollout's two largest fields, stored as it is instead of written again. */
export interface RolloutJsonFields {
  trajectory?: JsonText;
  extra?: JsonText;
}

function rolloutCsvValues(owner: RolloutOwner, rollout: Rollout, keepText: boolean, json: RolloutJsonFields = {}): unknown[] {
  return [
    owner.runId, owner.branchId, owner.jobId, rollout.split, rollout.step, rollout.taskId, rollout.groupId,
    rollout.sample, rollout.reward, rollout.rewardComponents, rollout.responseTokens, rollout.turns,
    rollout.finishReason, rollout.truncated,
    keepText ? rollout.prompt : null,
    keepText ? rollout.response : null,
    keepText ? (json.trajectory ?? rollout.trajectory) : null,
    // Encoded here, not by csvField: a string answer ("2,125", "007") must stay a JSON string.
    rollout.groundTruth === undefined ? null : JSON.stringify(rollout.groundTruth),
    rollout.testResults, json.extra ?? rollout.extra, rollout.uid, rollout.advantage,
    // Per-token numbers go with the text they describe.
    keepText ? rollout.tokens : null,
  ];
}

/**
 * The rollout as a CSV line of the COPY below, but its id, which is put in front once it is known;
 * without its texts unless `keepText`.
 */
export function rolloutCsvLine(owner: RolloutOwner, rollout: Rollout, keepText: boolean): string {
  return csvLine(rolloutCsvValues(owner, rollout, keepText));
}

/** rolloutCsvLine's line as parts, `json`'s fields taken as they were written (CsvLines.pushParts). */
export function rolloutCsvParts(owner: RolloutOwner, rollout: Rollout, keepText: boolean, json: RolloutJsonFields): string[] {
  return csvLineParts(rolloutCsvValues(owner, rollout, keepText, json));
}

/**
 * Ids for `count` new rollouts, taken from the table's sequence up front: COPY returns no rows, and
 * knowing the ids before the rows are written lets the labels be written without asking for them.
 * Ids of rows that end up not inserted are skipped, as a failed insert skips them.
 */
export async function rolloutIds(client: Pick<pg.PoolClient, "query">, count: number): Promise<bigint[]> {
  if (count === 0) return [];
  // The sequence is looked up once: pg_get_serial_sequence is only stable, so it would run per row.
  const { rows } = await client.query<{ id: string }>(
    `WITH s AS MATERIALIZED (SELECT pg_get_serial_sequence('"Rollout"', 'id')::regclass AS seq)
     SELECT nextval(s.seq)::text AS id FROM s, generate_series(1, $1)`,
    [count],
  );
  return rows.map((row) => BigInt(row.id));
}

/**
 * Writes rollouts (rolloutCsvLine's lines) under `ids`, line for line, in the caller's transaction:
 * a straight COPY into "Rollout" when none of them is stored yet (the common case: the new lines of
 * a file), and when one is (a file read again, a uid twice) a COPY into a staging table moved over
 * with ON CONFLICT DO NOTHING on (branchId, uid), so re-ingesting never duplicates. Returns the ids
 * of the rows inserted; a row the database refuses for its data fails the call.
 */
export async function copyRolloutLines(client: pg.PoolClient, lines: CsvLines, ids: readonly bigint[]): Promise<bigint[]> {
  if (lines.count === 0) return [];
  const rows = lines.prefixed(ids.map((id) => `${id},`));
  await client.query("SAVEPOINT rollouts");
  try {
    await copyCsv(client, `"Rollout" (${quoted})`, rows);
    await client.query("RELEASE SAVEPOINT rollouts");
    rows.release();
    return [...ids];
  } catch (error) {
    if ((error as { code?: unknown }).code !== "23505") throw error;
    await client.query("ROLLBACK TO SAVEPOINT rollouts");
  }
  // Same column types as "Rollout", no constraints or defaults.
  await client.query(`CREATE TEMP TABLE IF NOT EXISTS rollout_staging AS SELECT ${quoted} FROM "Rollout" WITH NO DATA`);
  await copyCsv(client, `rollout_staging (${quoted})`, rows);
  rows.release();
  const inserted = await client.query<{ id: string }>(
    `INSERT INTO "Rollout" (${quoted})
     SELECT ${quoted} FROM rollout_staging
     ON CONFLICT ("branchId", "uid") DO NOTHING
     RETURNING id::text`,
  );
  // The staging table lives as long as this pooled connection; empty it for the next batch.
  await client.query("TRUNCATE rollout_staging");
  return inserted.rows.map((row) => BigInt(row.id));
}

/**
 * A plain COPY of rollouts straight into "Rollout", ids from its sequence, with no check for rows
 * stored before and no labels: the floor the ingest benchmarks measure ingest against.
 */
export async function plainCopyRollouts(client: pg.PoolClient, owner: RolloutOwner, rollouts: readonly Rollout[]): Promise<void> {
  await copyCsv(client, `"Rollout" (${quotedLine})`, CsvLines.of(rollouts.map((r) => rolloutCsvLine(owner, r, true))));
}
