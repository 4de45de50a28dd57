import type { Rollout } from "@evotrainer/contract";
import { compileDetector, verifyDetectorCases, type Detector, type DetectorDefinition } from "../harness/detector.ts";
import { rolloutBindings, type RolloutContext } from "../harness/rollout-variables.ts";
import { rateSeparation, type RateSeparation } from "./rate-separation.ts";

/** One past branch of the run, with its rollouts and how the gate (or a person) judged it. */
export interface BranchRollouts {
  branchId: string;
  outcome: "promoted" | "rejected";
  rollouts: readonly Rollout[];
  context?: RolloutContext;
}

/** A label a person confirmed present (or absent) on a rollout. */
export interface ConfirmedLabel {
  rolloutUid: string;
  label: string;
  present: boolean;
}

export interface RetroOptions {
  minBranchesPerSide: number;
  minRateDifference: number;
  minAuc: number;
  minConfirmed: number;
  minAgreement: number;
}

export const DEFAULT_RETRO_OPTIONS: RetroOptions = {
  minBranchesPerSide: 1,
  minRateDifference: 0.1,
  minAuc: 0.8,
  minConfirmed: 5,
  minAgreement: 0.9,
};

export interface BranchRate {
  branchId: string;
  outcome: BranchRollouts["outcome"];
  rollouts: number;
  flagged: number;
  rate: number;
}

export interface RetroEvidence {
  perBranch: BranchRate[];
  separation: RateSeparation | null;
  agreement: { confirmed: number; agreed: number; rate: number } | null;
  /** Rollouts the detector could not evaluate. */
  errors: number;
}

export interface RetroValidation {
  detectorId: string;
  accepted: boolean;
  reasons: string[];
  /** The replayed definition and what the replay found; absent when the candidate was never run. */
  detector?: Detector;
  evidence?: RetroEvidence;
}

/**
 * Replays a candidate detector over the run's past branches. It is accepted when its rate separates
 * rejected from promoted branches (mean difference and AUC both over their thresholds), or when it
 * agrees with labels people confirmed; a candidate that fails its guards or cases is never run.
 */
export function retroValidate(
  candidate: DetectorDefinition,
  branches: readonly BranchRollouts[],
  confirmed: readonly ConfirmedLabel[] = [],
  options: Partial<RetroOptions> = {},
): RetroValidation {
  const o = { ...DEFAULT_RETRO_OPTIONS, ...options };
  const compiled = compileDetector(candidate);
  if (!compiled.ok) return { accepted: false, detectorId: compiled.detectorId, reasons: [`rejected by the CEL guards (${compiled.field}: ${compiled.message})`] };
  const detector = compiled.detector;
  const failures = verifyDetectorCases(detector);
  if (failures.length > 0) {
    return { accepted: false, detectorId: detector.definition.id, reasons: failures.map((f) => `case "${f.caseName}": expected ${f.expected}, got ${f.got}`) };
  }

  const flaggedUids = new Set<string>();
  const seenUids = new Set<string>();
  let errors = 0;
  const perBranch: BranchRate[] = branches.map((b) => {
    let flagged = 0;
    for (const r of b.rollouts) {
      seenUids.add(r.uid);
      const out = detector.apply(r.uid, rolloutBindings(r, b.context));
      if (out.error !== undefined) errors++;
      if (out.label) {
        flagged++;
        flaggedUids.add(r.uid);
      }
    }
    const n = b.rollouts.length;
    return { branchId: b.branchId, outcome: b.outcome, rollouts: n, flagged, rate: n === 0 ? 0 : flagged / n };
  });

  const reasons: string[] = [];
  const rates = (side: BranchRollouts["outcome"]) => perBranch.filter((b) => b.outcome === side).map((b) => b.rate);
  const promoted = rates("promoted");
  const rejected = rates("rejected");
  let separation: RateSeparation | null = null;
  let separates = false;
  if (promoted.length >= o.minBranchesPerSide && rejected.length >= o.minBranchesPerSide) {
    separation = rateSeparation(promoted, rejected);
    separates = separation.difference >= o.minRateDifference && separation.auc >= o.minAuc;
    reasons.push(
      `rate on rejected ${separation.rejectedMean.toFixed(4)} vs promoted ${separation.promotedMean.toFixed(4)} ` +
        `(Δ ${separation.difference.toFixed(4)}, need ≥ ${o.minRateDifference}; AUC ${separation.auc.toFixed(3)}, need ≥ ${o.minAuc})`,
    );
  } else {
    reasons.push(`${promoted.length} promoted and ${rejected.length} rejected branches; separation needs ${o.minBranchesPerSide} of each`);
  }

  const relevant = confirmed.filter((c) => c.label === detector.definition.label && seenUids.has(c.rolloutUid));
  let agreement: RetroEvidence["agreement"] = null;
  let agrees = false;
  if (relevant.length > 0) {
    const agreed = relevant.filter((c) => flaggedUids.has(c.rolloutUid) === c.present).length;
    agreement = { confirmed: relevant.length, agreed, rate: agreed / relevant.length };
    agrees = relevant.length >= o.minConfirmed && agreement.rate >= o.minAgreement;
    reasons.push(`agrees with ${agreed} of ${relevant.length} confirmed labels (need ≥ ${o.minConfirmed} at ≥ ${o.minAgreement * 100}%)`);
  }

  return {
    detectorId: detector.definition.id,
    accepted: separates || agrees,
    reasons,
    detector: detector.definition,
    evidence: { perBranch, separation, agreement, errors },
  };
}
