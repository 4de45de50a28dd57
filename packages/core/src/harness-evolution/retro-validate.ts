import type { Rollout } from "@evotrainer/contract";
import { compileDetector, verifyDetectorCases, type Detector, type DetectorDefinition, type Domain } from "../harness/detector.ts";
import { rolloutBindings, type RolloutContext } from "../harness/rollout-variables.ts";
import { domainMismatch } from "./domain-fields.ts";
import { rateSeparation, type RateSeparation } from "./rate-separation.ts";
import { branchPermutationTest, clusteredProportionTest, type PermutationTest, type ProportionTest } from "./separation-tests.ts";

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

/** The rules a candidate detector must meet to be registered; a refusal names the ones it failed. */
export type AdmissionRule = "domain" | "cases" | "evidence" | "branch_separation" | "rollout_separation" | "firing_rate";

export interface RetroOptions {
  /** The run's domain: a candidate must be written for it and read only fields its rollouts have. */
  domain?: Domain;
  minBranchesPerSide: number;
  /** Flagged rollouts, over all replayed branches, below which nothing is concluded. */
  minFlagged: number;
  minRateDifference: number;
  minAuc: number;
  /**
   * Level of each one-sided test (branch permutation, branch-clustered proportion) for one
   * candidate in one check; evolveHarness divides the run's level over the candidates and rounds.
   */
  level: number;
  /** A detector firing on this share of all replayed rollouts or more labels everything, i.e. nothing. */
  maxFiringRate: number;
  /** Highest rate allowed among successful rollouts of promoted branches: a failure label stays off successes. */
  maxSuccessfulRate: number;
  successThreshold: number;
  minConfirmed: number;
  minAgreement: number;
}

export const DEFAULT_RETRO_OPTIONS: RetroOptions = {
  minBranchesPerSide: 3,
  minFlagged: 20,
  minRateDifference: 0.1,
  minAuc: 0.8,
  level: 0.05,
  maxFiringRate: 0.9,
  maxSuccessfulRate: 0.1,
  successThreshold: 0.5,
  minConfirmed: 5,
  minAgreement: 0.9,
};

/** How the evidence was tested, stored with every registration. */
export const ADMISSION_TEST =
  "one-sided exact permutation test of per-branch label rates (rejected > promoted) and one-sided two-proportion test over rollouts with branch-clustered standard errors (t on branches − 2 df), each at the stated level (the run's level divided over the candidates tested and the run's rounds), with at least minBranchesPerSide branches per side and minFlagged flagged rollouts; firing rate below maxFiringRate overall and at most maxSuccessfulRate among successful rollouts of promoted branches; the detector's own cases pass";

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
  branchTest: PermutationTest | null;
  rolloutTest: ProportionTest | null;
  firing: { overall: number; amongSuccessful: number; successful: number; flagged: number; rollouts: number };
  agreement: { confirmed: number; agreed: number; rate: number } | null;
  /** Rollouts the detector could not evaluate. */
  errors: number;
  /** The options it was judged under and the test that accepted or refused it. */
  options: Omit<RetroOptions, "domain">;
  test: string;
}

export interface RetroValidation {
  detectorId: string;
  accepted: boolean;
  /** Every rule the candidate failed; empty when accepted. */
  refusedBy: AdmissionRule[];
  reasons: string[];
  /** The replayed definition and what the replay found; absent when the candidate was never run. */
  detector?: Detector;
  evidence?: RetroEvidence;
}

/**
 * Replays a candidate detector over the run's past branches and admits it only if every rule holds:
 * it is valid for the domain; its rate separates rejected from promoted branches at the branch level
 * (permutation test) and at the rollout level (proportion test), on enough branches and flagged
 * rollouts, with a large enough difference and AUC; it does not fire on nearly every rollout nor on
 * successful rollouts of promoted branches; its own cases pass. Agreement with labels people
 * confirmed may stand in for the separation rules, never for the others.
 */
export function retroValidate(
  candidate: DetectorDefinition,
  branches: readonly BranchRollouts[],
  confirmed: readonly ConfirmedLabel[] = [],
  options: Partial<RetroOptions> = {},
): RetroValidation {
  const { domain, ...o } = { ...DEFAULT_RETRO_OPTIONS, ...options };
  if (domain !== undefined) {
    const mismatch = domainMismatch(candidate, domain);
    if (mismatch) return { accepted: false, detectorId: candidate.id, refusedBy: ["domain"], reasons: [`domain: ${mismatch}`] };
  }
  const compiled = compileDetector(candidate);
  if (!compiled.ok) return { accepted: false, detectorId: compiled.detectorId, refusedBy: ["cases"], reasons: [`cases: rejected by the CEL guards (${compiled.field}: ${compiled.message})`] };
  const detector = compiled.detector;
  const failures = verifyDetectorCases(detector);
  if (failures.length > 0) {
    return { accepted: false, detectorId: detector.definition.id, refusedBy: ["cases"], reasons: failures.map((f) => `cases: "${f.caseName}": expected ${f.expected}, got ${f.got}`) };
  }

  const flaggedUids = new Set<string>();
  const seenUids = new Set<string>();
  let errors = 0;
  let successful = 0;
  let successfulFlagged = 0;
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
      if (b.outcome === "promoted" && r.reward !== null && r.reward >= o.successThreshold) {
        successful++;
        if (out.label) successfulFlagged++;
      }
    }
    const n = b.rollouts.length;
    return { branchId: b.branchId, outcome: b.outcome, rollouts: n, flagged, rate: n === 0 ? 0 : flagged / n };
  });

  const reasons: string[] = [];
  const refused = new Set<AdmissionRule>();
  const side = (outcome: BranchRollouts["outcome"]) => perBranch.filter((b) => b.outcome === outcome);
  const promoted = side("promoted");
  const rejected = side("rejected");
  const totalRollouts = perBranch.reduce((a, b) => a + b.rollouts, 0);
  const totalFlagged = perBranch.reduce((a, b) => a + b.flagged, 0);
  const firing = { overall: totalRollouts ? totalFlagged / totalRollouts : 0, amongSuccessful: successful ? successfulFlagged / successful : 0, successful, flagged: totalFlagged, rollouts: totalRollouts };

  let separation: RateSeparation | null = null;
  let branchTest: PermutationTest | null = null;
  let rolloutTest: ProportionTest | null = null;
  const separationRefusals = new Set<AdmissionRule>();
  if (promoted.length < o.minBranchesPerSide || rejected.length < o.minBranchesPerSide || totalFlagged < o.minFlagged) {
    separationRefusals.add("evidence");
    reasons.push(
      `evidence: ${promoted.length} promoted and ${rejected.length} rejected branches, ${totalFlagged} flagged rollouts; ` +
        `needs ${o.minBranchesPerSide} branches per side and ${o.minFlagged} flagged rollouts`,
    );
  }
  if (promoted.length > 0 && rejected.length > 0) {
    separation = rateSeparation(promoted.map((b) => b.rate), rejected.map((b) => b.rate));
    branchTest = branchPermutationTest(promoted.map((b) => b.rate), rejected.map((b) => b.rate));
    const counts = (bs: BranchRate[]) => bs.map((b) => ({ flagged: b.flagged, n: b.rollouts }));
    rolloutTest = clusteredProportionTest(counts(rejected), counts(promoted));
    const branchOk = separation.difference >= o.minRateDifference && separation.auc >= o.minAuc && branchTest.p <= o.level;
    if (!branchOk) separationRefusals.add("branch_separation");
    reasons.push(
      `branch_separation: rate on rejected ${separation.rejectedMean.toFixed(4)} vs promoted ${separation.promotedMean.toFixed(4)} ` +
        `(Δ ${separation.difference.toFixed(4)}, need ≥ ${o.minRateDifference}; AUC ${separation.auc.toFixed(3)}, need ≥ ${o.minAuc}; ` +
        `permutation p ${branchTest.p.toPrecision(3)} over ${branchTest.permutations} relabellings, need ≤ ${o.level.toPrecision(3)})`,
    );
    if (rolloutTest.p > o.level) separationRefusals.add("rollout_separation");
    reasons.push(
      `rollout_separation: ${rolloutTest.rejectedRate.toFixed(4)} of rejected branches' rollouts vs ${rolloutTest.promotedRate.toFixed(4)} of promoted ones ` +
        `(branch-clustered t ${rolloutTest.z.toFixed(2)} on ${rolloutTest.df} df, p ${rolloutTest.p.toPrecision(3)}, need ≤ ${o.level.toPrecision(3)})`,
    );
  } else {
    separationRefusals.add("branch_separation");
    separationRefusals.add("rollout_separation");
  }

  if (firing.overall >= o.maxFiringRate || firing.amongSuccessful > o.maxSuccessfulRate) refused.add("firing_rate");
  reasons.push(
    `firing_rate: ${firing.overall.toFixed(4)} of ${totalRollouts} rollouts (must stay under ${o.maxFiringRate}), ` +
      `${firing.amongSuccessful.toFixed(4)} of ${successful} successful rollouts of promoted branches (at most ${o.maxSuccessfulRate})`,
  );

  const relevant = confirmed.filter((c) => c.label === detector.definition.label && seenUids.has(c.rolloutUid));
  let agreement: RetroEvidence["agreement"] = null;
  let agrees = false;
  if (relevant.length > 0) {
    const agreed = relevant.filter((c) => flaggedUids.has(c.rolloutUid) === c.present).length;
    agreement = { confirmed: relevant.length, agreed, rate: agreed / relevant.length };
    agrees = relevant.length >= o.minConfirmed && agreement.rate >= o.minAgreement;
    reasons.push(`agreement: agrees with ${agreed} of ${relevant.length} confirmed labels (need ≥ ${o.minConfirmed} at ≥ ${o.minAgreement * 100}%)`);
  }
  // Labels people confirmed are evidence of their own: they stand in for separation.
  if (!agrees) for (const r of separationRefusals) refused.add(r);

  const refusedBy = [...refused];
  return {
    detectorId: detector.definition.id,
    accepted: refusedBy.length === 0,
    refusedBy,
    reasons,
    detector: detector.definition,
    evidence: { perBranch, separation, branchTest, rolloutTest, firing, agreement, errors, options: o, test: ADMISSION_TEST },
  };
}
