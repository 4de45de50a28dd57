// Test-only: hand-checked labels of real rollouts against what a catalog flags, shared by the core
// (math, code) and adapters (swe) tests. Reads the truth file, so never import it from non-test source.
import { readFileSync } from "node:fs";
import type { DetectorDefinition } from "../harness/detector.ts";
import { informativeness, type Informativeness } from "../label-quality/informativeness.ts";

/** The issue's review size: at least this many flagged and unflagged rollouts per detector, or all there are. */
export const MIN_REVIEWED = 30;

export interface TruthFile {
  source: string;
  /** Per detector, how its reviewed rollouts were chosen. */
  scope?: Record<string, string>;
  labels: Record<string, Record<string, { truth: boolean; reason: string }>>;
}

export interface TruthRow {
  label: string;
  flagged: number;
  reviewedFlagged: number;
  reviewedUnflagged: number;
  positives: number;
  tp: number;
  precision: number;
  /** Over the reviewed rollouts; `undefined` when none of them is a positive. */
  recall: number | undefined;
  target: number;
  disagreements: string[];
}

export function readTruth(url: URL): TruthFile {
  return JSON.parse(readFileSync(url, "utf8")) as TruthFile;
}

/** Precision and recall of each reviewed detector, with the target the issue sets (validity 0.9, others 0.8). */
export function truthRows(truth: TruthFile, catalog: readonly DetectorDefinition[], flaggedBy: (label: string) => Set<string>): TruthRow[] {
  return Object.entries(truth.labels).map(([label, byUid]) => {
    const detector = catalog.find((d) => d.label === label);
    if (!detector) throw new Error(`truth names ${label}, which the catalog has no detector for`);
    const flagged = flaggedBy(label);
    const reviewed = Object.keys(byUid);
    const reviewedFlagged = reviewed.filter((uid) => flagged.has(uid));
    const positives = reviewed.filter((uid) => byUid[uid]!.truth).length;
    const tp = reviewedFlagged.filter((uid) => byUid[uid]!.truth).length;
    return {
      label,
      flagged: flagged.size,
      reviewedFlagged: reviewedFlagged.length,
      reviewedUnflagged: reviewed.length - reviewedFlagged.length,
      positives,
      tp,
      // No flags claims nothing: precision is vacuous, and recall shows what it misses.
      precision: reviewedFlagged.length === 0 ? 1 : tp / reviewedFlagged.length,
      recall: positives === 0 ? undefined : tp / positives,
      target: detector.validity ? 0.9 : 0.8,
      disagreements: reviewed.filter((uid) => flagged.has(uid) !== byUid[uid]!.truth).map((uid) => `${uid}: truth ${byUid[uid]!.truth} (${byUid[uid]!.reason})`),
    };
  });
}

export function truthTable(rows: readonly TruthRow[], truth: TruthFile): string {
  const lines = ["detector            flagged  reviewed flagged/unflagged  truth  TP  precision  recall"];
  for (const r of rows) {
    lines.push(
      `${r.label.padEnd(20)}${String(r.flagged).padStart(7)}${`${r.reviewedFlagged}/${r.reviewedUnflagged}`.padStart(27)}${String(r.positives).padStart(7)}${String(r.tp).padStart(4)}${r.precision.toFixed(2).padStart(11)}${(r.recall === undefined ? "–" : r.recall.toFixed(2)).padStart(8)}${truth.scope?.[r.label] ? `  (${truth.scope[r.label]})` : ""}`,
    );
  }
  return lines.join("\n");
}

export interface OutcomeRow {
  label: string;
  flaggedSucceeded: number;
  succeeded: number;
  flaggedFailed: number;
  failed: number;
  informativeness: Informativeness;
}

/** Each label's flag rate among successful and failed rollouts (resolved or not), with core's informativeness. */
export function outcomeRows(labels: readonly string[], succeeded: ReadonlySet<string>, uids: readonly string[], flaggedBy: (label: string) => Set<string>): OutcomeRow[] {
  const failed = uids.filter((u) => !succeeded.has(u));
  return labels.map((label) => {
    const flagged = flaggedBy(label);
    const counts = {
      flaggedSucceeded: [...succeeded].filter((u) => flagged.has(u)).length,
      succeeded: succeeded.size,
      flaggedFailed: failed.filter((u) => flagged.has(u)).length,
      failed: failed.length,
    };
    return { label, ...counts, informativeness: informativeness(counts) };
  });
}

export function outcomeTable(rows: readonly OutcomeRow[]): string {
  const pct = (n: number, d: number) => `${n}/${d} (${d === 0 ? "–" : `${Math.round((100 * n) / d)}%`})`;
  const lines = ["detector            resolved flagged   unresolved flagged   difference [95% CI]    separates"];
  for (const r of rows) {
    const i = r.informativeness;
    lines.push(
      `${r.label.padEnd(20)}${pct(r.flaggedSucceeded, r.succeeded).padEnd(19)}${pct(r.flaggedFailed, r.failed).padEnd(21)}${`${i.difference.toFixed(2)} [${i.interval[0].toFixed(2)}, ${i.interval[1].toFixed(2)}]`.padEnd(23)}${i.separates}`,
    );
  }
  return lines.join("\n");
}
