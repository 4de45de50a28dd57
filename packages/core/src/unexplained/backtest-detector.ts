import type { Rollout } from "@evotrainer/contract";
import { compileDetector, verifyDetectorCases, type CaseFailure, type DetectorDefinition, type Label } from "../harness/detector.ts";
import { isFailure, isSuccess } from "../harness/metrics.ts";
import { rolloutBindings, type RolloutContext } from "../harness/rollout-variables.ts";
import { informativeness, type Informativeness } from "../label-quality/informativeness.ts";
import { wilson } from "../label-quality/wilson.ts";

/** A person's verdict on whether a rollout carries a label (a review of it, or a label they added). */
export interface LabelVerdict {
  rolloutUid: string;
  label: string;
  present: boolean;
}

/** Precision against people's reviews of the flagged rollouts; null when none of them was reviewed. */
export interface ReviewedPrecision {
  reviewed: number;
  confirmed: number;
  precision: number;
  interval: [number, number];
}

export interface DetectorBacktest {
  rollouts: number;
  flagged: number;
  flagRate: number;
  failed: number;
  flaggedFailed: number;
  succeeded: number;
  flaggedSucceeded: number;
  /** Flagged rollouts among the cluster the detector was drafted from. */
  cluster: { size: number; flagged: number } | null;
  informativeness: Informativeness;
  precision: ReviewedPrecision | null;
  /** Rollouts the rule could not evaluate, with the first error. */
  errors: number;
  firstError: string | null;
  caseFailures: CaseFailure[];
  exampleUids: string[];
}

export type BacktestResult = { ok: true; backtest: DetectorBacktest } | { ok: false; field: "definition" | "when" | "evidence"; message: string };

export interface DetectorBacktestInput {
  detector: DetectorDefinition;
  rollouts: readonly Rollout[];
  /** The labels the branch's harness gave, for the success rule (a validity label voids a success). */
  labels: readonly Pick<Label, "rolloutUid" | "validity">[];
  successThreshold: number;
  context?: RolloutContext;
  /** The uids of the cluster the detector was drafted from, to say how much of it the rule catches. */
  clusterUids?: readonly string[];
  reviews?: readonly LabelVerdict[];
  maxExamples?: number;
}

/**
 * Replays a (drafted) detector on a branch's rollouts before it is registered: how often it fires,
 * whether it fires more on failed than on successful rollouts (informativeness), how much of its
 * cluster it catches, and, where people reviewed the flagged rollouts, its precision with a Wilson
 * interval. A rule that does not compile is refused with the field and the reason.
 */
export function backtestDetector(input: DetectorBacktestInput): BacktestResult {
  const compiled = compileDetector(input.detector);
  if (!compiled.ok) return { ok: false, field: compiled.field, message: compiled.message };
  const detector = compiled.detector;
  const invalid = new Set(input.labels.filter((l) => l.validity).map((l) => l.rolloutUid));
  const flaggedUids = new Set<string>();
  let errors = 0;
  let firstError: string | null = null;
  let failed = 0;
  let flaggedFailed = 0;
  let succeeded = 0;
  let flaggedSucceeded = 0;
  for (const r of input.rollouts) {
    const out = detector.apply(r.uid, rolloutBindings(r, input.context));
    if (out.error !== undefined) {
      errors++;
      firstError ??= out.error;
    }
    const hit = out.label !== undefined;
    if (hit) flaggedUids.add(r.uid);
    if (isFailure(r, invalid, input.successThreshold)) {
      failed++;
      if (hit) flaggedFailed++;
    } else if (isSuccess(r, invalid, input.successThreshold)) {
      succeeded++;
      if (hit) flaggedSucceeded++;
    }
  }
  const n = input.rollouts.length;
  const flagged = flaggedUids.size;
  const label = detector.definition.label;
  const verdicts = (input.reviews ?? []).filter((v) => v.label === label && flaggedUids.has(v.rolloutUid));
  const confirmed = verdicts.filter((v) => v.present).length;
  return {
    ok: true,
    backtest: {
      rollouts: n,
      flagged,
      flagRate: n === 0 ? 0 : flagged / n,
      failed,
      flaggedFailed,
      succeeded,
      flaggedSucceeded,
      cluster: input.clusterUids ? { size: input.clusterUids.length, flagged: input.clusterUids.filter((u) => flaggedUids.has(u)).length } : null,
      informativeness: informativeness({ flaggedFailed, failed, flaggedSucceeded, succeeded }),
      precision: verdicts.length === 0 ? null : { reviewed: verdicts.length, confirmed, precision: confirmed / verdicts.length, interval: wilson(confirmed, verdicts.length) },
      errors,
      firstError,
      caseFailures: verifyDetectorCases(detector),
      exampleUids: [...flaggedUids].slice(0, input.maxExamples ?? 5),
    },
  };
}
