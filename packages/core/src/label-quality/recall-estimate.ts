import { wilson } from "./wilson.ts";

/** z for each of two 97.5% intervals: both cover together with probability at least 95% (Bonferroni). */
const Z_EACH = 2.241402727604947;

/** One reviewed rollout of the detector's unflagged sample, with the inverse of its inclusion probability. */
export interface UnflaggedReview {
  missed: boolean;
  weight: number;
}

export interface RecallInput {
  /** Rollouts the detector flagged, and how many of the reviewed ones a person confirmed / rejected. */
  flagged: number;
  confirmed: number;
  rejected: number;
  /** Rollouts the detector did not flag, and the reviewed sample of them. */
  unflagged: number;
  sample: readonly UnflaggedReview[];
}

export interface RecallEstimate {
  recall: number;
  interval: [number, number];
  /** Estimated rollouts the label holds on: flagged and right, and unflagged but missed. */
  truePositives: number;
  missed: number;
  /** Kish's effective size of the weighted unflagged sample. */
  effectiveSample: number;
}

/**
 * Recall of a detector from reviews: true positives are the flagged rollouts times reviewed precision;
 * the misses among unflagged rollouts are a Horvitz–Thompson estimate from the weighted unflagged
 * sample, in its ratio (Hájek) form so that a sample only partly reviewed still estimates the share
 * with its weights. The interval combines the Wilson interval of each part at 97.5% (the misses' at
 * Kish's effective sample size), at the ends that make recall smallest and largest, so it covers with
 * at least 95%. Null without reviews on a side that has rollouts, or when the reviews found the label
 * nowhere: recall is then unknown, not 0 or 1.
 */
export function estimateRecall(input: RecallInput): RecallEstimate | null {
  const reviewedFlagged = input.confirmed + input.rejected;
  const sumW = input.sample.reduce((s, r) => s + r.weight, 0);
  if ((input.flagged > 0 && reviewedFlagged === 0) || (input.unflagged > 0 && sumW <= 0)) return null;
  if (input.flagged === 0 && input.unflagged === 0) return null;
  const precision = reviewedFlagged > 0 ? input.confirmed / reviewedFlagged : 0;
  const sumW2 = input.sample.reduce((s, r) => s + r.weight * r.weight, 0);
  const missedShare = sumW > 0 ? input.sample.reduce((s, r) => s + (r.missed ? r.weight : 0), 0) / sumW : 0;
  const effectiveSample = sumW2 > 0 ? (sumW * sumW) / sumW2 : 0;
  const truePositives = input.flagged * precision;
  const missed = input.unflagged * missedShare;
  const [pLo, pHi] = reviewedFlagged > 0 ? wilson(input.confirmed, reviewedFlagged, Z_EACH) : [0, 0];
  const [mLo, mHi] = effectiveSample > 0 ? wilson(missedShare * effectiveSample, effectiveSample, Z_EACH) : [0, 0];
  const ratio = (tp: number, fn: number) => (tp + fn > 0 ? tp / (tp + fn) : 0);
  // The reviews found the label on no rollout: recall is undefined there.
  if (truePositives + missed === 0) return null;
  return {
    recall: ratio(truePositives, missed),
    interval: [ratio(input.flagged * pLo, input.unflagged * mHi), ratio(input.flagged * pHi, input.unflagged * mLo)],
    truePositives,
    missed,
    effectiveSample,
  };
}
