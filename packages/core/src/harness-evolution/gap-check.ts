import type { Rollout } from "@evotrainer/contract";
import type { Label } from "../harness/detector.ts";
import { critFindings, type HealthReport } from "../harness/health-report.ts";
import { isFailure } from "../harness/metrics.ts";

export interface GapOptions {
  /** Rounds the score must have improved over. */
  window: number;
  /** Smallest gain over the window that counts as improving. */
  minImprovement: number;
  /** Share of failed rollouts no detector explains above which the harness is blind. */
  maxUnexplainedShare: number;
  /** Labels that restate a failure rather than explain it (a wrong answer is the failure itself). */
  outcomeLabels: readonly string[];
  successThreshold: number;
}

export const DEFAULT_GAP_OPTIONS: GapOptions = {
  window: 3,
  minImprovement: 0.01,
  maxUnexplainedShare: 0.5,
  outcomeLabels: ["wrong_answer"],
  successThreshold: 0.5,
};

export interface GapInput {
  report: Pick<HealthReport, "layers">;
  /** The frontier's main score on the promotion split in recent rounds, oldest first. */
  scoreHistory: readonly number[];
  /** The frontier's rollouts and their labels under the current harness. */
  rollouts: readonly Rollout[];
  labels: readonly Label[];
}

export interface DiagnosticGap {
  gap: boolean;
  reasons: string[];
  scoreFlat: boolean;
  critFindings: string[];
  failures: number;
  unexplained: number;
  unexplainedShare: number;
  exampleUids: string[];
}

/**
 * Whether the harness fails to explain what is going wrong: the score stalled while no CRIT finding
 * names a cause, or most failed rollouts carry no label but the failure itself.
 */
export function diagnosticGap(input: GapInput, options: Partial<GapOptions> = {}): DiagnosticGap {
  const o = { ...DEFAULT_GAP_OPTIONS, ...options };
  const recent = input.scoreHistory.slice(-o.window);
  const gain = recent.length < o.window ? Number.POSITIVE_INFINITY : Math.max(...recent.slice(1)) - recent[0]!;
  const scoreFlat = gain < o.minImprovement;
  const crit = critFindings(input.report);

  const invalid = new Set(input.labels.filter((l) => l.validity).map((l) => l.rolloutUid));
  const outcome = new Set(o.outcomeLabels);
  const explained = new Set(input.labels.filter((l) => !outcome.has(l.label)).map((l) => l.rolloutUid));
  const failed = input.rollouts.filter((r) => isFailure(r, invalid, o.successThreshold));
  const unexplained = failed.filter((r) => !explained.has(r.uid));
  const unexplainedShare = failed.length === 0 ? 0 : unexplained.length / failed.length;

  const reasons: string[] = [];
  if (scoreFlat && crit.length === 0) {
    reasons.push(`score gained ${gain.toFixed(4)} over the last ${o.window} rounds (< ${o.minImprovement}) and no CRIT finding names a cause`);
  }
  if (unexplainedShare > o.maxUnexplainedShare) {
    reasons.push(`${unexplained.length} of ${failed.length} failed rollouts carry no explaining label (${(unexplainedShare * 100).toFixed(1)}% > ${o.maxUnexplainedShare * 100}%)`);
  }
  return {
    gap: reasons.length > 0,
    reasons,
    scoreFlat,
    critFindings: crit,
    failures: failed.length,
    unexplained: unexplained.length,
    unexplainedShare,
    exampleUids: unexplained.slice(0, 10).map((r) => r.uid),
  };
}
