import { z } from "zod";

/** `gate.labelQuality`: what a label must have shown in reviews before the gate acts on it alone. */
export const labelQualityRequirementSchema = z.strictObject({
  // Reviewed precision (confirmed among reviewed flags) the label's detector must reach.
  minPrecision: z.number().min(0).max(1),
  // Reviewed flags it needs before its precision counts at all.
  minReviews: z.number().int().min(1),
});
export type LabelQualityRequirement = z.infer<typeof labelQualityRequirementSchema>;

/** A label's reviewed precision in the run's harness version. */
export interface LabelTrust {
  reviewed: number;
  precision: number | null;
}

/**
 * Why the gate may not act on a label alone, or null when its reviews meet the requirement (or the
 * run sets none). The sentence is what the person asked to decide reads.
 */
export function untrustedLabelReason(requirement: LabelQualityRequirement | undefined, label: string, trust: LabelTrust | undefined): string | null {
  if (!requirement) return null;
  const reviewed = trust?.reviewed ?? 0;
  if (reviewed < requirement.minReviews) return `${label} has ${reviewed} reviewed labels, fewer than the ${requirement.minReviews} that gate.labelQuality.minReviews asks for`;
  const precision = trust?.precision ?? 0;
  if (precision < requirement.minPrecision) return `${label}'s reviewed precision ${precision.toFixed(2)} is below gate.labelQuality.minPrecision ${requirement.minPrecision}`;
  return null;
}

/** The label a targeted metric measures (`label_rate.<label>`, `label_count.<label>`), if any. */
export function labelOfMetric(metric: string): string | null {
  const match = /^label_(?:rate|count)\.(.+)$/.exec(metric);
  return match ? match[1]! : null;
}

interface GateCheck {
  name: string;
  passed: boolean;
  numbers: Record<string, number | string | null>;
}

/**
 * Checks whose outcome rests on a label the reviews do not yet support, each with the reason: a failed
 * validity limit (the label would veto the branch) and a targeted metric of a label (it would decide
 * the promotion). Such a branch goes to a person rather than being vetoed or promoted on that label.
 */
export function labelQualityHolds(
  requirement: LabelQualityRequirement | undefined,
  checks: readonly GateCheck[],
  trust: ReadonlyMap<string, LabelTrust>,
  targetMetric: string,
): string[] {
  const reasons: string[] = [];
  for (const check of checks) {
    const label =
      check.name === "validity_limit" && !check.passed ? String(check.numbers.label) : check.name === "targeted_metric" ? labelOfMetric(targetMetric) : null;
    const reason = label === null ? null : untrustedLabelReason(requirement, label, trust.get(label));
    if (reason) reasons.push(check.name === "validity_limit" ? `${label} is over its validity limit, but ${reason}` : `the targeted metric ${targetMetric} measures ${label}, but ${reason}`);
  }
  return reasons;
}
