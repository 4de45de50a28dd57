import type pg from "pg";
import type { Label } from "@evotrainer/core";
import type { Rollout } from "@evotrainer/contract";
import { copyCsv, csvLine, CsvLines } from "./csv.ts";

/** Runs a harness version's detectors on a batch of rollouts while it is ingested. */
export interface BatchLabeler {
  label(rollouts: readonly Rollout[]): Label[] | Promise<Label[]>;
  /** Every detector that runs, by its harness id: each gets a LabelStat row per step, zero counts included. */
  detectors: ReadonlyMap<string, { rowId: string; label: string }>;
}

/** A label of a rollout not stored yet: its whole CSV line but the rollout's id, which the insert gives. */
export interface PendingLabel {
  rolloutUid: string;
  split: string;
  step: number;
  detectorRowId: string;
  /** The CSV fields after "rolloutId", with the line's end. */
  csvTail: string;
}

/**
 * The batch's labels as rows of "RolloutLabel", built before the batch is stored (while the one
 * before it is), so that storing only prefixes each line with its rollout's id. A detector firing
 * twice on one rollout keeps its first label; a detector the labeller does not list is dropped.
 */
export function pendingLabels(branchId: string, labeler: BatchLabeler, labels: readonly Label[], rollouts: ReadonlyMap<string, Rollout>): PendingLabel[] {
  const pending: PendingLabel[] = [];
  const seen = new Set<string>();
  for (const l of labels) {
    const rollout = rollouts.get(l.rolloutUid);
    const detector = labeler.detectors.get(l.detectorId);
    const key = `${l.rolloutUid}|${l.detectorId}`;
    if (!rollout || !detector || seen.has(key)) continue;
    seen.add(key);
    pending.push({
      rolloutUid: l.rolloutUid,
      split: rollout.split,
      step: rollout.step,
      detectorRowId: detector.rowId,
      csvTail: csvLine([branchId, rollout.split, rollout.step, l.label, detector.rowId, JSON.stringify(l.evidence ?? null)]),
    });
  }
  return pending;
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
  labels: readonly PendingLabel[],
): Promise<void> {
  if (inserted.length === 0) return;
  const ids = new Map(inserted.map((row) => [row.rollout.uid, row.id]));
  // A rollout this batch inserted has no labels yet, so the labels need no conflict handling.
  const stored = labels.filter((l) => ids.has(l.rolloutUid));
  if (stored.length > 0) {
    // COPY, not INSERT … SELECT from a JSON parameter: labels are the largest write after the rollouts.
    await copyCsv(
      client,
      `"RolloutLabel" ("rolloutId", "branchId", split, step, label, "detectorId", evidence)`,
      CsvLines.of(stored.map((l) => `${ids.get(l.rolloutUid)},${l.csvTail}`)),
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
  for (const l of stored) {
    const stat = stats.get(`${l.split}|${l.step}|${l.detectorRowId}`);
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
