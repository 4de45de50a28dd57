import type pg from "pg";
import type { Label } from "@evotrainer/core";
import type { Rollout } from "@evotrainer/contract";

/** Runs a harness version's detectors on a batch of rollouts while it is ingested. */
export interface BatchLabeler {
  label(rollouts: readonly Rollout[]): Label[] | Promise<Label[]>;
  /** Every detector that runs, by its harness id: each gets a LabelStat row per step, zero counts included. */
  detectors: ReadonlyMap<string, { rowId: string; label: string }>;
}

/**
 * Stores the labels of the rollouts this batch inserted and adds the batch's counts to LabelStat.
 * Only newly inserted rollouts count, so a re-ingested line never counts twice.
 */
export async function writeBatchLabels(
  client: pg.PoolClient,
  branchId: string,
  labeler: BatchLabeler,
  inserted: readonly { id: bigint; rollout: Rollout }[],
  labels: readonly Label[],
): Promise<void> {
  if (inserted.length === 0) return;
  const byUid = new Map(inserted.map((row) => [row.rollout.uid, row]));
  const labelRows = labels.flatMap((l) => {
    const row = byUid.get(l.rolloutUid);
    const detector = labeler.detectors.get(l.detectorId);
    if (!row || !detector) return [];
    return [{ rolloutId: row.id.toString(), split: row.rollout.split, step: row.rollout.step, label: l.label, detectorId: detector.rowId, evidence: l.evidence ?? null }];
  });
  if (labelRows.length > 0) {
    await client.query(
      `INSERT INTO "RolloutLabel" ("rolloutId", "branchId", split, step, label, "detectorId", evidence)
       SELECT l."rolloutId"::bigint, $1, l.split::"Split", l.step, l.label, l."detectorId", COALESCE(l.evidence, 'null'::jsonb)
         FROM jsonb_to_recordset($2::jsonb) AS l("rolloutId" text, split text, step int, label text, "detectorId" text, evidence jsonb)
       ON CONFLICT ("rolloutId", "detectorId") DO NOTHING`,
      [branchId, JSON.stringify(labelRows)],
    );
  }

  const stats = new Map<string, { split: string; step: number; detectorId: string; label: string; count: number; total: number }>();
  const totals = new Map<string, number>();
  for (const { rollout } of inserted) {
    const key = `${rollout.split}|${rollout.step}`;
    totals.set(key, (totals.get(key) ?? 0) + 1);
  }
  for (const [key, total] of totals) {
    const [split, step] = key.split("|") as [string, string];
    for (const detector of labeler.detectors.values()) {
      stats.set(`${key}|${detector.rowId}`, { split, step: Number(step), detectorId: detector.rowId, label: detector.label, count: 0, total });
    }
  }
  for (const row of labelRows) {
    const stat = stats.get(`${row.split}|${row.step}|${row.detectorId}`);
    if (stat) stat.count++;
  }
  await client.query(
    `INSERT INTO "LabelStat" (id, "branchId", split, step, label, "detectorId", count, total, "updatedAt")
     SELECT gen_random_uuid()::text, $1, s.split::"Split", s.step, s.label, s."detectorId", s.count, s.total, now()
       FROM jsonb_to_recordset($2::jsonb) AS s(split text, step int, label text, "detectorId" text, count int, total int)
     ON CONFLICT ("branchId", split, step, "detectorId")
     DO UPDATE SET count = "LabelStat".count + EXCLUDED.count, total = "LabelStat".total + EXCLUDED.total, "updatedAt" = now()`,
    [branchId, JSON.stringify([...stats.values()])],
  );
}
