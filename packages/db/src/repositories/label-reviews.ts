import type { Review, ReviewVerdict } from "../generated/prisma/client.ts";
import { recordEvent, type Tx } from "./events.ts";

/** One review as every reader sees it: ids as strings, the sampling it came from, if any. */
export interface ReviewRecord {
  id: string;
  runId: string;
  branchId: string;
  rolloutId: string;
  label: string;
  detectorId: string | null;
  harnessVersionId: string | null;
  flagged: boolean;
  verdict: ReviewVerdict;
  reviewerId: string | null;
  reviewer: string;
  note: string | null;
  stratum: string | null;
  weight: number | null;
  createdAt: Date;
}

export function toReviewRecord(row: Review): ReviewRecord {
  return { ...row, id: String(row.id), rolloutId: String(row.rolloutId) };
}

export interface ReviewInput {
  rollout: { id: bigint; runId: string; branchId: string };
  label: string;
  detectorId: string | null;
  harnessVersionId: string | null;
  /** Whether the detector flagged the rollout: it decides what the verdict may be (reviewVerdictProblem). */
  flagged: boolean;
  verdict: ReviewVerdict;
  reviewer: { id: string | null; name: string };
  note: string | null;
  /** From the review queue: the stratum and inverse inclusion probability of the rollout. */
  sampling: { stratum: string; weight: number } | null;
  /** Who the ledger names: `user:<id>`, or `import:<file>` for a truth file. */
  actor: string;
}

/**
 * Stores a person's review of one label on one rollout (a second review of the same label replaces
 * the first) and its audit Event, in the caller's transaction. A review of a flagged label is also
 * set on the label itself, which the harness check's agreement with people reads.
 */
export async function recordReview(tx: Tx, input: ReviewInput): Promise<ReviewRecord> {
  const data = {
    runId: input.rollout.runId,
    branchId: input.rollout.branchId,
    detectorId: input.detectorId,
    harnessVersionId: input.harnessVersionId,
    flagged: input.flagged,
    verdict: input.verdict,
    reviewerId: input.reviewer.id,
    reviewer: input.reviewer.name,
    note: input.note,
    stratum: input.sampling?.stratum ?? null,
    weight: input.sampling?.weight ?? null,
  };
  const row = await tx.review.upsert({
    where: { rolloutId_label: { rolloutId: input.rollout.id, label: input.label } },
    create: { ...data, rolloutId: input.rollout.id, label: input.label },
    update: { ...data, createdAt: new Date() },
  });
  if (input.flagged && input.detectorId && input.verdict !== "missed") {
    await tx.rolloutLabel.updateMany({
      where: { rolloutId: input.rollout.id, detectorId: input.detectorId },
      data: { review: input.verdict, reviewedById: input.reviewer.id, reviewedAt: row.createdAt },
    });
  }
  await recordEvent(tx, {
    runId: input.rollout.runId,
    branchId: input.rollout.branchId,
    type: "label_review",
    actor: input.actor,
    payload: {
      reviewId: String(row.id),
      rolloutId: String(input.rollout.id),
      label: input.label,
      detectorId: input.detectorId,
      verdict: input.verdict,
      flagged: input.flagged,
      reviewer: input.reviewer.name,
      note: input.note,
      stratum: data.stratum,
      weight: data.weight,
    },
  });
  return toReviewRecord(row);
}
