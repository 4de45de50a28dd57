import { informativeness, type FlagCounts, type Informativeness } from "./informativeness.ts";
import { estimateRecall, type RecallEstimate } from "./recall-estimate.ts";
import { wilson } from "./wilson.ts";

/** What the quality summary reads of one review. */
export interface ReviewFact {
  flagged: boolean;
  verdict: "confirmed" | "rejected" | "missed";
  /** Inverse inclusion probability from the review queue; null for a review made outside it. */
  weight: number | null;
}

export interface DetectorQualityInput {
  detectorId: string;
  label: string;
  /** Rollouts it flagged and did not flag, among those it ran on. */
  flagged: number;
  unflagged: number;
  reviews: readonly ReviewFact[];
  /** Its flags among failed and successful rollouts. */
  outcomes: FlagCounts;
}

export interface DetectorQuality {
  detectorId: string;
  label: string;
  /** Reviews of flagged rollouts: what precision rests on. */
  reviewed: number;
  confirmed: number;
  precision: number | null;
  precisionInterval: [number, number] | null;
  /** Reviewed unflagged rollouts from the queue's sample. */
  recallReviewed: number;
  recall: RecallEstimate | null;
  /**
   * Misses found outside the queue's sample (a truth file's, or added by hand on an opened rollout):
   * kept and shown, but not in recall, which only a probability sample estimates without bias.
   */
  missedOutsideSample: number;
  informativeness: Informativeness;
}

/**
 * A detector's quality from its reviews: precision with its Wilson interval from reviewed flags,
 * recall estimated from the queue's weighted sample of unflagged rollouts (a hand review outside the
 * queue is no probability sample, so it counts for precision but not recall), and informativeness.
 */
export function detectorQuality(input: DetectorQualityInput): DetectorQuality {
  const flaggedReviews = input.reviews.filter((r) => r.flagged);
  const confirmed = flaggedReviews.filter((r) => r.verdict !== "rejected").length;
  const rejected = flaggedReviews.length - confirmed;
  const sample = input.reviews.filter((r) => !r.flagged && r.weight !== null).map((r) => ({ missed: r.verdict !== "rejected", weight: r.weight! }));
  return {
    detectorId: input.detectorId,
    label: input.label,
    reviewed: flaggedReviews.length,
    confirmed,
    precision: flaggedReviews.length > 0 ? confirmed / flaggedReviews.length : null,
    precisionInterval: flaggedReviews.length > 0 ? wilson(confirmed, flaggedReviews.length) : null,
    recallReviewed: sample.length,
    recall: estimateRecall({ flagged: input.flagged, confirmed, rejected, unflagged: input.unflagged, sample }),
    missedOutsideSample: input.reviews.filter((r) => !r.flagged && r.weight === null && r.verdict === "missed").length,
    informativeness: informativeness(input.outcomes),
  };
}

const two = (x: number) => x.toFixed(2);

/**
 * A label chip's words from its reviewed flags: "tool_error · precision 0.93 [0.79, 0.98] · 30 reviewed",
 * or "tool_error · not reviewed".
 */
export function qualityText(label: string, reviewed: number, confirmed: number): string {
  if (reviewed === 0) return `${label} · not reviewed`;
  const [lo, hi] = wilson(confirmed, reviewed);
  return `${label} · precision ${two(confirmed / reviewed)} [${two(lo)}, ${two(hi)}] · ${reviewed} reviewed`;
}

/** Whether a person's "the label holds" / "it does not" is a confirmation, a rejection or a miss. */
export function reviewVerdict(flagged: boolean, holds: boolean): "confirmed" | "rejected" | "missed" {
  return !holds ? "rejected" : flagged ? "confirmed" : "missed";
}
