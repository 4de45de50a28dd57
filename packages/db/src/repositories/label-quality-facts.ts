import { detectorQuality, gatePolicySchema, informativeness, reviewQueue, type DetectorQuality, type FlagCounts, type Informativeness, type LabelTrust, type ReviewFact, type ReviewQueueItem } from "@evotrainer/core";
import type { Tx } from "./events.ts";

/** A detector of the harness version whose quality is measured. */
export interface ReviewedDetector {
  id: string;
  key: string;
  label: string;
  version: number;
  validity: boolean;
}

/** The harness version a run's reviews measure (the run's current one unless named) and its detectors. */
export async function reviewHarness(db: Tx, runId: string, harnessVersionId?: string) {
  const run = await db.run.findUniqueOrThrow({ where: { id: runId }, select: { harnessVersionId: true } });
  const id = harnessVersionId ?? run.harnessVersionId;
  if (!id) return null;
  const hv = await db.harnessVersion.findUnique({
    where: { id },
    select: { id: true, version: true, runId: true, gatePolicy: true, detectors: { select: { detector: { select: { id: true, key: true, label: true, version: true, validity: true } } } } },
  });
  if (!hv || (hv.runId !== null && hv.runId !== runId)) return null;
  const detectors: ReviewedDetector[] = hv.detectors.map((d) => d.detector).sort((a, b) => a.label.localeCompare(b.label));
  return { id: hv.id, version: hv.version, successThreshold: gatePolicySchema.parse(hv.gatePolicy ?? {}).successThreshold, detectors };
}

// The rollouts a detector ran on: every step it has a LabelStat row for (zero counts included), outside the sealed split.
const RAN_ON = `FROM "LabelStat" s
  JOIN "Branch" b ON b.id = s."branchId" AND b."runId" = $1
  JOIN "Rollout" r ON r."branchId" = s."branchId" AND r.split = s.split AND r.step = s.step
  LEFT JOIN "RolloutLabel" l ON l."rolloutId" = r.id AND l."detectorId" = s."detectorId"
  WHERE s."detectorId" = ANY($2) AND s.split <> 'sealed'`;

const noFlags = (): FlagCounts => ({ flaggedFailed: 0, failed: 0, flaggedSucceeded: 0, succeeded: 0 });

/** One branch's flags of a detector: how it fires there and whether it separates failure from success. */
export interface BranchFiring {
  branchId: string;
  version: number;
  rollouts: number;
  flagged: number;
  informativeness: Informativeness;
}

/**
 * Per detector: its flags among failed and successful rollouts (reward under / at least the
 * threshold), over the run and per branch, so a detector that harness evolution added can be watched
 * on the branches that came after it.
 */
async function outcomesOf(db: Tx, runId: string, detectorIds: string[], successThreshold: number) {
  const rows = await db.$queryRawUnsafe<{ detectorId: string; branchId: string; version: number; succeeded: boolean | null; n: number; flagged: number }[]>(
    `SELECT s."detectorId", b.id AS "branchId", b.version, (r.reward >= $3) AS succeeded, count(*)::int AS n, count(l.id)::int AS flagged ${RAN_ON} GROUP BY 1, 2, 3, 4`,
    runId,
    detectorIds,
    successThreshold,
  );
  const runCounts = new Map(detectorIds.map((id) => [id, noFlags()]));
  const branchCounts = new Map(detectorIds.map((id) => [id, new Map<string, { version: number; counts: FlagCounts }>()]));
  for (const r of rows) {
    // A rollout without a known result (succeeded is null) is neither a failure nor a success.
    if (r.succeeded === null) continue;
    const perBranch = branchCounts.get(r.detectorId)!;
    const branch = perBranch.get(r.branchId) ?? perBranch.set(r.branchId, { version: r.version, counts: noFlags() }).get(r.branchId)!;
    for (const c of [runCounts.get(r.detectorId)!, branch.counts]) {
      if (r.succeeded) Object.assign(c, { flaggedSucceeded: c.flaggedSucceeded + r.flagged, succeeded: c.succeeded + r.n });
      else Object.assign(c, { flaggedFailed: c.flaggedFailed + r.flagged, failed: c.failed + r.n });
    }
  }
  const branches = new Map(
    detectorIds.map((id) => [
      id,
      [...branchCounts.get(id)!.entries()]
        .map(([branchId, { version, counts }]): BranchFiring => ({
          branchId,
          version,
          rollouts: counts.failed + counts.succeeded,
          flagged: counts.flaggedFailed + counts.flaggedSucceeded,
          informativeness: informativeness(counts),
        }))
        .sort((a, b) => a.version - b.version),
    ]),
  );
  return { runCounts, branches };
}

/** The run's reviews of the detectors, as the quality summary reads them. */
async function reviewFactsOf(db: Tx, runId: string, detectorIds: string[]): Promise<Map<string, ReviewFact[]>> {
  const rows = await db.review.findMany({ where: { runId, detectorId: { in: detectorIds } }, select: { detectorId: true, flagged: true, verdict: true, weight: true } });
  const facts = new Map<string, ReviewFact[]>(detectorIds.map((id) => [id, []]));
  for (const r of rows) facts.get(r.detectorId!)!.push({ flagged: r.flagged, verdict: r.verdict, weight: r.weight });
  return facts;
}

/** Reviews kept for a label that no detector of the harness version measures. */
export interface UnmeasuredLabelReviews {
  label: string;
  reviews: number;
  missed: number;
}

/**
 * The run's reviews of labels outside the harness version's detectors (a truth file may name any
 * label, and an older version's detector may have left them): kept, counted here, measured nowhere.
 */
async function unmeasuredReviewsOf(db: Tx, runId: string, detectorIds: string[]): Promise<UnmeasuredLabelReviews[]> {
  const rows = await db.review.groupBy({ by: ["label", "verdict"], where: { runId, OR: [{ detectorId: null }, { detectorId: { notIn: detectorIds } }] }, _count: { _all: true } });
  const byLabel = new Map<string, UnmeasuredLabelReviews>();
  for (const r of rows) {
    const c = byLabel.get(r.label) ?? byLabel.set(r.label, { label: r.label, reviews: 0, missed: 0 }).get(r.label)!;
    c.reviews += r._count._all;
    if (r.verdict === "missed") c.missed += r._count._all;
  }
  return [...byLabel.values()].sort((a, b) => a.label.localeCompare(b.label));
}

/** Quality of each detector of the harness version, from the run's reviews and rollouts. */
export async function runLabelQuality(
  db: Tx,
  runId: string,
  harnessVersionId?: string,
): Promise<{
  harness: { id: string; version: number } | null;
  detectors: (DetectorQuality & { detector: ReviewedDetector; branches: BranchFiring[] })[];
  unmeasured: UnmeasuredLabelReviews[];
}> {
  const harness = await reviewHarness(db, runId, harnessVersionId);
  if (!harness) return { harness: null, detectors: [], unmeasured: [] };
  const ids = harness.detectors.map((d) => d.id);
  const [outcomes, reviews, unmeasured] = await Promise.all([outcomesOf(db, runId, ids, harness.successThreshold), reviewFactsOf(db, runId, ids), unmeasuredReviewsOf(db, runId, ids)]);
  return {
    harness: { id: harness.id, version: harness.version },
    unmeasured,
    detectors: harness.detectors.map((d) => {
      const o = outcomes.runCounts.get(d.id)!;
      const flagged = o.flaggedFailed + o.flaggedSucceeded;
      const quality = detectorQuality({ detectorId: d.id, label: d.label, flagged, unflagged: o.failed + o.succeeded - flagged, reviews: reviews.get(d.id)!, outcomes: o });
      return { ...quality, detector: d, branches: outcomes.branches.get(d.id)! };
    }),
  };
}

/** Per detector, flagged reviews and confirmed among them in the run: what a label chip shows. */
export async function reviewedPrecisionCounts(db: Tx, runId: string): Promise<Map<string, { reviewed: number; confirmed: number }>> {
  const rows = await db.review.groupBy({ by: ["detectorId", "verdict"], where: { runId, flagged: true, detectorId: { not: null } }, _count: { _all: true } });
  const counts = new Map<string, { reviewed: number; confirmed: number }>();
  for (const r of rows) {
    const c = counts.get(r.detectorId!) ?? counts.set(r.detectorId!, { reviewed: 0, confirmed: 0 }).get(r.detectorId!)!;
    c.reviewed += r._count._all;
    if (r.verdict !== "rejected") c.confirmed += r._count._all;
  }
  return counts;
}

export interface ReviewQueueState {
  harness: { id: string; version: number };
  items: (ReviewQueueItem & { reviewed: boolean })[];
  /** Per detector and stratum: "tool_error: 23 of 30 reviewed". */
  progress: { detectorId: string; label: string; stratum: "flagged" | "unflagged"; reviewed: number; planned: number }[];
}

/**
 * The run's review queue for a harness version: core's stratified sample over the rollouts each
 * detector ran on, seeded by the run and version so it is the same queue on every visit, with which
 * questions already have a review.
 */
export async function runReviewQueue(db: Tx, runId: string, sizes: { flagged: number; unflagged: number }, harnessVersionId?: string): Promise<ReviewQueueState | null> {
  const harness = await reviewHarness(db, runId, harnessVersionId);
  if (!harness) return null;
  const ids = harness.detectors.map((d) => d.id);
  const rows = await db.$queryRawUnsafe<{ detectorId: string; rolloutId: bigint; flagged: boolean }[]>(`SELECT s."detectorId", r.id AS "rolloutId", (l.id IS NOT NULL) AS flagged ${RAN_ON}`, runId, ids);
  const sets = new Map(ids.map((id) => [id, { population: [] as string[], flagged: [] as string[] }]));
  for (const r of rows) {
    const s = sets.get(r.detectorId)!;
    s.population.push(String(r.rolloutId));
    if (r.flagged) s.flagged.push(String(r.rolloutId));
  }
  const queue = reviewQueue({
    detectors: harness.detectors.map((d) => ({ detectorId: d.id, label: d.label, ...sets.get(d.id)! })),
    seed: `${runId}/${harness.id}`,
    flaggedPerDetector: sizes.flagged,
    unflaggedPerDetector: sizes.unflagged,
  });
  const done = await db.review.findMany({ where: { runId, rolloutId: { in: [...new Set(queue.map((q) => BigInt(q.rolloutId)))] } }, select: { rolloutId: true, label: true } });
  const reviewed = new Set(done.map((r) => `${r.rolloutId}/${r.label}`));
  const items = queue.map((q) => ({ ...q, reviewed: reviewed.has(`${q.rolloutId}/${q.label}`) }));
  const progress = harness.detectors.flatMap((d) =>
    (["flagged", "unflagged"] as const).map((stratum) => {
      const of = items.filter((i) => i.detectorId === d.id && i.stratum === stratum);
      return { detectorId: d.id, label: d.label, stratum, reviewed: of.filter((i) => i.reviewed).length, planned: of.length };
    }),
  );
  return { harness: { id: harness.id, version: harness.version }, items, progress };
}

/** Reviewed precision per label of the run's harness version: what `gate.labelQuality` is checked against. */
export async function runLabelTrust(db: Tx, runId: string): Promise<Map<string, LabelTrust>> {
  const [harness, counts] = await Promise.all([reviewHarness(db, runId), reviewedPrecisionCounts(db, runId)]);
  return new Map(
    (harness?.detectors ?? []).map((d) => {
      const c = counts.get(d.id) ?? { reviewed: 0, confirmed: 0 };
      return [d.label, { reviewed: c.reviewed, precision: c.reviewed > 0 ? c.confirmed / c.reviewed : null }];
    }),
  );
}
