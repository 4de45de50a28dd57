import type pg from "pg";
import type { Rollout } from "@evotrainer/contract";
import { copyCsv, csvLine, CsvLines } from "./csv.ts";

export interface RolloutOwner {
  runId: string;
  branchId: string;
  jobId: string | null;
}

/** Columns written by bulk ingest, in COPY order. */
const columns = [
  "runId", "branchId", "jobId", "split", "step", "taskId", "groupId", "sample", "reward",
  "rewardComponents", "responseTokens", "turns", "finishReason", "truncated", "prompt", "response",
  "trajectory", "groundTruth", "testResults", "extra", "uid",
] as const;

const quoted = columns.map((c) => `"${c}"`).join(", ");

/** The rollout as one CSV line of the COPY below; without its texts unless `keepText`. */
export function rolloutCsvLine(owner: RolloutOwner, rollout: Rollout, keepText: boolean): string {
  return csvLine([
    owner.runId, owner.branchId, owner.jobId, rollout.split, rollout.step, rollout.taskId, rollout.groupId,
    rollout.sample, rollout.reward, rollout.rewardComponents, rollout.responseTokens, rollout.turns,
    rollout.finishReason, rollout.truncated,
    keepText ? rollout.prompt : null,
    keepText ? rollout.response : null,
    keepText ? rollout.trajectory : null,
    // Encoded here, not by csvField: a string answer ("2,125", "007") must stay a JSON string.
    rollout.groundTruth === undefined ? null : JSON.stringify(rollout.groundTruth),
    rollout.testResults, rollout.extra, rollout.uid,
  ]);
}

/**
 * Bulk-loads rollouts with COPY into a transaction-local staging table, then moves them into
 * "Rollout" with ON CONFLICT DO NOTHING on (branchId, uid): re-ingesting a file never duplicates.
 * Runs on `client` inside the caller's transaction. Returns the rows actually inserted.
 */
export async function copyRollouts(
  client: pg.PoolClient,
  owner: RolloutOwner,
  rollouts: readonly Rollout[],
  keepText: (rollout: Rollout) => boolean,
): Promise<{ id: bigint; uid: string }[]> {
  return copyRolloutLines(client, CsvLines.of(rollouts.map((r) => rolloutCsvLine(owner, r, keepText(r)))));
}

/** copyRollouts for lines already built by rolloutCsvLine: ingest builds them while the batch before is stored. */
export async function copyRolloutLines(client: pg.PoolClient, lines: CsvLines): Promise<{ id: bigint; uid: string }[]> {
  if (lines.count === 0) return [];
  // Same column types as "Rollout", no constraints or defaults (no id sequence consumed while staging).
  await client.query(`CREATE TEMP TABLE IF NOT EXISTS rollout_staging AS SELECT ${quoted} FROM "Rollout" WITH NO DATA`);
  await copyCsv(client, `rollout_staging (${quoted})`, lines);
  const { rows } = await client.query<{ id: string; uid: string }>(
    `INSERT INTO "Rollout" (${quoted})
     SELECT ${quoted} FROM rollout_staging
     ON CONFLICT ("branchId", "uid") DO NOTHING
     RETURNING id::text, uid`,
  );
  // The staging table lives as long as this pooled connection; empty it for the next batch.
  await client.query("TRUNCATE rollout_staging");
  return rows.map((row) => ({ id: BigInt(row.id), uid: row.uid }));
}
