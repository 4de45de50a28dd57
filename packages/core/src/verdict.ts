import { pairedBootstrap, type BootstrapResult } from "./bootstrap.ts";
import type { GatePolicy } from "./harness/harness.ts";
import { critFindings, type HealthReport } from "./harness/health-report.ts";
import type { BranchMetrics } from "./harness/metrics.ts";
import type { Intervention } from "./intervention.ts";
import type { ControlComparison } from "./gate/control-test.ts";
import { labelQualityHolds, type LabelTrust } from "./label-quality/label-quality-gate.ts";
import { unlimitedValidity } from "./gate/unlimited-validity.ts";
import { meanOfSet } from "./stats.ts";

export interface GateSide {
  /** Per-task mean scores on the promotion split. */
  taskScores: ReadonlyMap<string, number>;
  report: Pick<HealthReport, "metrics" | "layers">;
}

export interface VerdictInput {
  candidate: GateSide;
  parent: GateSide;
  /** The best-so-far branch when the round started; the parent when absent (the loop builds each round on its best, so the worker passes none). */
  best?: GateSide;
  intervention: Pick<Intervention, "targetMetric" | "expectedEffect">;
  policy: GatePolicy;
  seed: number;
  /**
   * The candidate against its round's control replicates (`judgeRound`), or null when the run
   * trains no control (`search.control: none`): then the parent is the only baseline, and the
   * verdict says it cannot tell the intervention from the extra training steps.
   */
  vsControl: ControlComparison | null;
  /**
   * CRIT findings of the round's control replicates: what training on with the parent's recipe
   * brings without the intervention. A candidate is not blamed for a CRIT its controls also show.
   */
  controlCrit?: readonly string[];
  /**
   * The round's control replicates' metrics: the targeted metric is judged against their mean,
   * since extra training alone moves it against the parent. Absent without a control arm.
   */
  controlMetrics?: readonly BranchMetrics[];
  /** Reviewed precision per label, for `policy.labelQuality`. */
  labelTrust?: ReadonlyMap<string, LabelTrust>;
  /** The labels the harness's validity detectors give (`validityLabelsOf`): one present but not limited sends the round to a person. */
  validityLabels?: readonly string[];
}

export interface Check {
  name: "main_score_vs_control" | "main_score_vs_parent" | "main_score_vs_best" | "targeted_metric" | "no_new_crit" | "validity_limit" | "no_control_arm";
  passed: boolean;
  /** false for a check shown as context only (the parent when a control exists); default true. */
  blocking?: boolean;
  detail: string;
  numbers: Record<string, number | string | null>;
}

export interface Verdict {
  promote: boolean;
  checks: Check[];
  vsParent: BootstrapResult;
  vsBest: BootstrapResult;
  /** Absent on verdicts rebuilt from storage, where the check's numbers carry it. */
  vsControl?: ControlComparison | null;
  /** Why a person must decide: the outcome rests on a label without the reviewed quality the gate asks for, or on a validity label the gate does not limit. */
  needsPerson?: string[];
}

/** Reads a metric by its report name: a scalar, `label_rate.<label>` or `trainer.<key>`. */
export function metricValue(m: BranchMetrics, name: string): number | undefined {
  const [head, ...rest] = name.split(".");
  const key = rest.join(".");
  if ((head === "label_rate" || head === "label_count" || head === "trainer") && key) return m[head][key] ?? (head === "trainer" ? undefined : 0);
  const v = m[name as keyof BranchMetrics];
  return typeof v === "number" ? v : undefined;
}

const fmt = (x: number) => x.toFixed(4);

/**
 * The gate: the seed-aware comparison with the round's control (must beat it by more than the min
 * effect beyond what another training seed alone produces, Holm-adjusted over the round's candidates
 * at the round's share of the run's alpha), the best-so-far (must not regress beyond the margin),
 * the targeted metric moved as predicted against the control, no new CRIT finding, and every
 * validity label under its limit. The parent is shown as context; it is the baseline only when the
 * run trains no control. Every check is listed with its numbers, passed or not.
 */
export function verdict(input: VerdictInput): Verdict {
  const { candidate, parent, policy } = input;
  const best = input.best ?? parent;
  const opts = { resamples: policy.resamples, confidence: policy.confidence };
  const vsParent = pairedBootstrap(candidate.taskScores, parent.taskScores, { ...opts, seed: input.seed });
  const vsBest = pairedBootstrap(candidate.taskScores, best.taskScores, { ...opts, seed: input.seed + 1 });
  const checks: Check[] = [];

  const { vsControl } = input;
  if (vsControl) {
    const effect = vsControl.lower === null ? "" : `; effect Δ ${fmt(vsControl.delta)}, one-sided lower bound ${fmt(vsControl.lower)} against the min effect ${fmt(vsControl.minEffect)}`;
    checks.push({
      name: "main_score_vs_control",
      passed: vsControl.passed,
      detail: `vs the control (${vsControl.controls} replicate(s), ${vsControl.tasks} paired tasks): ${vsControl.reason}${effect}; seed noise sd ${vsControl.seedSd === null ? "unknown" : fmt(vsControl.seedSd)} on ${vsControl.noiseDf} df, task se ${fmt(vsControl.seTask)}, Holm rank ${vsControl.rank} of ${vsControl.family}`,
      numbers: {
        delta: vsControl.delta,
        lower: vsControl.lower,
        minEffect: vsControl.minEffect,
        threshold: vsControl.threshold,
        p: vsControl.p,
        roundAlpha: vsControl.alpha,
        // What the round took from the run's alpha: nothing when it could not be judged.
        spent: vsControl.se === null ? 0 : vsControl.alpha,
        holmLevel: vsControl.level,
        holmRank: vsControl.rank,
        family: vsControl.family,
        seedSd: vsControl.seedSd,
        noiseDf: vsControl.noiseDf,
        seSeed: vsControl.seSeed,
        seTask: vsControl.seTask,
        se: vsControl.se,
        df: vsControl.df,
        tasks: vsControl.tasks,
        controls: vsControl.controls,
      },
    });
  } else {
    checks.push({
      name: "no_control_arm",
      passed: false,
      blocking: false,
      detail: "search.control is none: no control was trained, so this verdict cannot separate the intervention from the extra training steps the candidate had over its parent",
      numbers: {},
    });
  }
  checks.push({
    name: "main_score_vs_parent",
    passed: vsParent.tasks > 0 && vsParent.ci[0] > 0,
    ...(vsControl ? { blocking: false } : {}),
    detail: `${vsControl ? "context: " : ""}Δ ${fmt(vsParent.delta)} over ${vsParent.tasks} tasks, ${policy.confidence * 100}% CI [${fmt(vsParent.ci[0])}, ${fmt(vsParent.ci[1])}]${vsControl ? " (task bootstrap only; includes the effect of extra training)" : "; the lower bound must exceed 0"}`,
    numbers: { delta: vsParent.delta, ciLow: vsParent.ci[0], ciHigh: vsParent.ci[1], tasks: vsParent.tasks, pNotBetter: vsParent.pNotBetter },
  });
  checks.push({
    name: "main_score_vs_best",
    passed: vsBest.tasks > 0 && vsBest.ci[0] > -policy.regressionMargin,
    detail: `Δ ${fmt(vsBest.delta)} vs best-so-far, CI [${fmt(vsBest.ci[0])}, ${fmt(vsBest.ci[1])}]; the lower bound must exceed -${policy.regressionMargin}`,
    numbers: { delta: vsBest.delta, ciLow: vsBest.ci[0], ciHigh: vsBest.ci[1], tasks: vsBest.tasks, margin: policy.regressionMargin },
  });

  const { targetMetric, expectedEffect } = input.intervention;
  const controlValues = (input.controlMetrics ?? []).map((m) => metricValue(m, targetMetric));
  const againstControl = vsControl !== null && controlValues.length > 0;
  const before = againstControl
    ? controlValues.every((v): v is number => v !== undefined)
      ? meanOfSet(controlValues)
      : undefined
    : metricValue(parent.report.metrics, targetMetric);
  const after = metricValue(candidate.report.metrics, targetMetric);
  const moved = before !== undefined && after !== undefined ? after - before : undefined;
  const asPredicted = moved !== undefined && (expectedEffect.direction === "up" ? moved > 0 : moved < 0);
  const baseline = againstControl ? `the control (mean of ${controlValues.length})` : "the parent";
  checks.push({
    name: "targeted_metric",
    passed: asPredicted,
    detail:
      moved === undefined
        ? `${targetMetric} is not reported for both the candidate and ${baseline}`
        : `${targetMetric} ${fmt(before!)} (${baseline}) → ${fmt(after!)} (Δ ${fmt(moved)}); predicted ${expectedEffect.direction}`,
    numbers: { before: before ?? null, after: after ?? null, delta: moved ?? null, expected: expectedEffect.direction, baseline: againstControl ? "control" : "parent" },
  });

  const baselineCrit = new Set([...critFindings(parent.report), ...(input.controlCrit ?? [])]);
  const newCrit = critFindings(candidate.report).filter((c) => !baselineCrit.has(c));
  const baselines = input.controlCrit ? "the parent or the round's controls" : "the parent";
  checks.push({
    name: "no_new_crit",
    passed: newCrit.length === 0,
    detail: newCrit.length === 0 ? `no CRIT finding ${baselines} did not have` : `new CRIT findings (${baselines} had none of them): ${newCrit.join(", ")}`,
    numbers: { newCrit: newCrit.length, findings: newCrit.join(",") },
  });

  for (const [label, limit] of Object.entries(policy.validityLimits).sort()) {
    const rate = candidate.report.metrics.label_rate[label] ?? 0;
    checks.push({
      name: "validity_limit",
      passed: rate <= limit,
      detail: `${label} rate ${fmt(rate)}, limit ${fmt(limit)}`,
      numbers: { label, rate, limit },
    });
  }

  const sides = [
    { name: "candidate", metrics: candidate.report.metrics },
    { name: "parent", metrics: parent.report.metrics },
    ...(input.controlMetrics ?? []).map((metrics, i) => ({ name: `control ${i + 1}`, metrics })),
  ];
  const needsPerson = [
    ...labelQualityHolds(policy.labelQuality, checks, input.labelTrust ?? new Map(), targetMetric),
    ...unlimitedValidity(input.validityLabels ?? [], policy.validityLimits, sides),
  ];
  const promote = needsPerson.length === 0 && checks.every((c) => c.passed || c.blocking === false);
  return { promote, checks, vsParent, vsBest, vsControl, ...(needsPerson.length > 0 ? { needsPerson } : {}) };
}
