import type pg from "pg";
import type { Label } from "@evotrainer/core";
import type { Rollout } from "@evotrainer/contract";
import { copyCsv, csvLine } from "./csv.ts";

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
  const labelRows: { rolloutId: bigint; split: string; step: number; label: string; detectorId: string; evidence: unknown }[] = [];
  // A rollout this batch inserted has no labels yet: the one conflict left is a detector firing twice on it.
  const seen = new Set<string>();
  for (const l of labels) {
    const row = byUid.get(l.rolloutUid);
    const detector = labeler.detectors.get(l.detectorId);
    if (!row || !detector || seen.has(`${row.id}|${detector.rowId}`)) continue;
    seen.add(`${row.id}|${detector.rowId}`);
    labelRows.push({ rolloutId: row.id, split: row.rollout.split, step: row.rollout.step, label: l.label, detectorId: detector.rowId, evidence: l.evidence });
  }
  if (labelRows.length > 0) {
    // COPY, not INSERT … SELECT from a JSON parameter: labels are the largest write after the rollouts.
    await copyCsv(
      client,
      `"RolloutLabel" ("rolloutId", "branchId", split, step, label, "detectorId", evidence)`,
      labelRows.map((l) => csvLine([l.rolloutId, branchId, l.split, l.step, l.label, l.detectorId, JSON.stringify(l.evidence ?? null)])),
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
