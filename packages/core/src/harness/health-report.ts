import { hasResult, type Rollout } from "@evotrainer/contract";
import { informativeness, type Informativeness } from "../label-quality/informativeness.ts";
import type { Label } from "./detector.ts";
import type { CompiledHarness } from "./harness.ts";
import { metricBindings, type Layer } from "./health-rule.ts";
import { computeMetrics, type BranchMetrics, type MetricExamples } from "./metrics.ts";

export type Level = "INFO" | "WARN" | "CRIT";

export interface Finding {
  layer: Layer;
  level: Level;
  /** Health rule id, or `label:<name>` for the behaviour layer's label census. */
  source: string;
  title: string;
  evidence: {
    metrics: Record<string, number>;
    counts: Record<string, number>;
    exampleUids: string[];
  };
  /** For a label's census finding: its flag rate among failed vs successful rollouts, and whether that separates them. */
  informativeness?: Informativeness;
}

export interface HealthReport {
  harnessVersion: number;
  metrics: BranchMetrics;
  layers: Record<Layer, Finding[]>;
  worst: "OK" | "WARN" | "CRIT";
  /** Rules that could not be evaluated on these metrics (e.g. a missing trainer key). */
  ruleErrors: { ruleId: string; error: string }[];
}

const SCALAR_EXAMPLES: Partial<Record<string, keyof Omit<MetricExamples, "label_rate">>> = {
  dead_group_ratio: "dead_group_ratio",
  truncation_rate: "truncation_rate",
  pass_rate: "pass_rate",
  reward_mean: "pass_rate",
};

/**
 * Diagnoses a branch: metrics, then every health rule (score, signal and behaviour layers), then a
 * census of labels in the behaviour layer. Every finding carries the numbers and rollouts behind it.
 */
export function healthReport(
  harness: CompiledHarness,
  rollouts: readonly Rollout[],
  labels: readonly Label[],
  trainer: Record<string, number> = {},
): HealthReport {
  const { metrics, examples } = computeMetrics(rollouts, labels, {
    successThreshold: harness.definition.gate.successThreshold,
    trainer,
    knownLabels: [...new Set(harness.detectors.map((d) => d.definition.label))],
  });
  const layers: Record<Layer, Finding[]> = { score: [], signal: [], behaviour: [] };
  const ruleErrors: HealthReport["ruleErrors"] = [];
  const bindings = metricBindings(metrics);

  for (const { definition, rule } of harness.healthRules) {
    const out = rule.evaluate(bindings);
    if (!out.ok) {
      ruleErrors.push({ ruleId: definition.id, error: out.error });
      continue;
    }
    if (out.value !== true) continue;
    const evidence: Finding["evidence"] = { metrics: {}, counts: {}, exampleUids: [] };
    for (const v of rule.variables) {
      const value = metrics[v as keyof BranchMetrics];
      if (typeof value === "number") evidence.metrics[v] = value;
      const ex = SCALAR_EXAMPLES[v];
      if (ex) evidence.exampleUids.push(...examples[ex]);
    }
    // Map-valued metrics: report the keys the rule names, or every non-zero entry when it iterates.
    for (const map of ["label_rate", "label_count", "trainer"] as const) {
      if (!rule.variables.includes(map)) continue;
      const named = rule.keys[map] ?? Object.keys(metrics[map]).filter((k) => metrics[map][k] !== 0);
      for (const k of named) {
        if (metrics[map][k] !== undefined) evidence.metrics[`${map}.${k}`] = metrics[map][k]!;
        if (map !== "trainer") {
          evidence.counts[k] = metrics.label_count[k] ?? 0;
          evidence.exampleUids.push(...(examples.label_rate[k] ?? []));
        }
      }
    }
    evidence.exampleUids = [...new Set(evidence.exampleUids)].slice(0, 10);
    layers[definition.layer].push({ layer: definition.layer, level: definition.level, source: definition.id, title: definition.description, evidence });
  }

  // The label census, most informative first: a label that fires as often on successes as on failures
  // explains nothing about the failures, however often it fires.
  // A rollout without a known result is neither: it is left out of both sides.
  const threshold = harness.definition.gate.successThreshold;
  const scored = rollouts.filter(hasResult);
  const succeeded = new Set(scored.filter((r) => r.reward >= threshold).map((r) => r.uid));
  const failed = new Set(scored.filter((r) => r.reward < threshold).map((r) => r.uid));
  const census: Finding[] = [];
  for (const [label, count] of Object.entries(metrics.label_count)) {
    if (count === 0) continue;
    const flagged = new Set(labels.filter((l) => l.label === label).map((l) => l.rolloutUid));
    const flaggedSucceeded = [...flagged].filter((uid) => succeeded.has(uid)).length;
    const flaggedFailed = [...flagged].filter((uid) => failed.has(uid)).length;
    const separation = informativeness({ flaggedFailed, failed: failed.size, flaggedSucceeded, succeeded: succeeded.size });
    census.push({
      layer: "behaviour",
      level: "INFO",
      source: `label:${label}`,
      title: `${label} on ${count} of ${metrics.rollouts} rollouts${separation.separates === "none" ? " (does not separate failure from success)" : ""}`,
      evidence: {
        metrics: { [`label_rate.${label}`]: metrics.label_rate[label]!, [`informativeness.${label}`]: separation.difference },
        counts: { [label]: count },
        exampleUids: examples.label_rate[label] ?? [],
      },
      informativeness: separation,
    });
  }
  const strength = (f: Finding) => (f.informativeness!.separates === "none" ? 0 : 1) * 10 + Math.abs(f.informativeness!.difference);
  layers.behaviour.push(...census.sort((a, b) => strength(b) - strength(a) || a.source.localeCompare(b.source)));

  const all = [...layers.score, ...layers.signal, ...layers.behaviour];
  const worst = all.some((f) => f.level === "CRIT") ? "CRIT" : all.some((f) => f.level === "WARN") ? "WARN" : "OK";
  return { harnessVersion: harness.definition.version, metrics, layers, worst, ruleErrors };
}

/** Ids of the CRIT findings in a report, for "no new CRIT" comparisons. */
export function critFindings(report: Pick<HealthReport, "layers">): string[] {
  return Object.values(report.layers).flat().filter((f) => f.level === "CRIT").map((f) => f.source);
}
