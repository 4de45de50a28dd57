import { seededRandom } from "../random.ts";
import { sha256Hex } from "../sha256.ts";

export type ReviewStratum = "flagged" | "unflagged";

export interface QueueDetector {
  detectorId: string;
  label: string;
  /** Ids of every rollout it ran on (of one run), and of those it flagged. */
  population: readonly string[];
  flagged: readonly string[];
}

export interface ReviewQueueInput {
  detectors: readonly QueueDetector[];
  seed: string;
  /** Sample sizes per detector: flagged rollouts for precision, unflagged ones for recall. */
  flaggedPerDetector: number;
  unflaggedPerDetector: number;
}

/** One question of the queue: does this label hold on this rollout? */
export interface ReviewQueueItem {
  rolloutId: string;
  detectorId: string;
  label: string;
  stratum: ReviewStratum;
  /** Inverse of the rollout's inclusion probability in its detector's stratum. */
  weight: number;
}

/** The first `n` of a seeded Fisher–Yates shuffle: a simple random sample in random order. */
function sampleOf(ids: readonly string[], n: number, random: () => number): string[] {
  const a = [...ids].sort();
  const take = Math.min(n, a.length);
  for (let i = 0; i < take; i++) {
    const j = i + Math.floor(random() * (a.length - i));
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
  return a.slice(0, take);
}

/** A detector's own stream: adding a detector to the harness leaves every other detector's sample as it was. */
function detectorRandom(seed: string, detectorId: string): () => number {
  return seededRandom(Number.parseInt(sha256Hex(`${seed}\u0000${detectorId}`).slice(0, 8), 16));
}

/**
 * The review queue: per detector, a simple random sample of the rollouts it flagged (its precision)
 * and one of those it did not flag (its recall), each item with the inverse of its inclusion
 * probability, so estimates from any reviewed part correct for the sampling. The strata are
 * interleaved round by round, so the first few minutes of reviewing already measure every detector.
 * Deterministic in the seed and the ids (whatever order they come in).
 */
export function reviewQueue(input: ReviewQueueInput): ReviewQueueItem[] {
  const strata: ReviewQueueItem[][] = [];
  for (const d of [...input.detectors].sort((a, b) => a.detectorId.localeCompare(b.detectorId))) {
    const random = detectorRandom(input.seed, d.detectorId);
    const flaggedSet = new Set(d.flagged);
    const flagged = [...flaggedSet];
    const unflagged = d.population.filter((id) => !flaggedSet.has(id));
    const fromFlagged = sampleOf(flagged, input.flaggedPerDetector, random);
    const fromUnflagged = sampleOf(unflagged, input.unflaggedPerDetector, random);
    const item = (stratum: ReviewStratum, size: number, count: number) => (rolloutId: string) => ({ rolloutId, detectorId: d.detectorId, label: d.label, stratum, weight: size / count });
    strata.push(fromFlagged.map(item("flagged", flagged.length, fromFlagged.length)));
    strata.push(fromUnflagged.map(item("unflagged", unflagged.length, fromUnflagged.length)));
  }
  const queue: ReviewQueueItem[] = [];
  for (let round = 0; strata.some((s) => round < s.length); round++) for (const s of strata) if (round < s.length) queue.push(s[round]!);
  return queue;
}
