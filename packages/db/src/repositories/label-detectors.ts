import type { Tx } from "./events.ts";

/** What a reader of labels shows of the detector behind each. */
export interface LabelDetector {
  id: string;
  key: string;
  label: string;
  version: number;
  validity: boolean;
  cel: string;
  description: string;
}

/**
 * The Detector rows that labels name, by id, in one query. A label holds its detector's id without
 * a relation (see RolloutLabel.detectorId), so readers join here.
 */
export async function labelDetectors(db: Tx, labels: readonly { detectorId: string }[]): Promise<Map<string, LabelDetector>> {
  const ids = [...new Set(labels.map((l) => l.detectorId))];
  if (ids.length === 0) return new Map();
  const rows = await db.detector.findMany({
    where: { id: { in: ids } },
    select: { id: true, key: true, label: true, version: true, validity: true, cel: true, description: true },
  });
  return new Map(rows.map((row) => [row.id, row]));
}

/** The detector a label names; a label whose detector is gone is a broken invariant, named here. */
export function detectorOf(detectors: ReadonlyMap<string, LabelDetector>, label: { id: bigint; detectorId: string }): LabelDetector {
  const detector = detectors.get(label.detectorId);
  if (!detector) throw new Error(`label ${label.id} names detector ${label.detectorId}, which does not exist`);
  return detector;
}
