import {
  computeMetrics, defaultRecipe, DEFAULT_HEALTH_RULES, FACTOR_PATTERNS, lockedEvaluationSchema,
  type BranchMetrics, type Finding, type HealthReport, type Level, type ProposerInput,
} from "@evotrainer/core";

const split = { dataset: "tasks", samplesPerTask: 4, temperature: 0.6, maxResponseTokens: 4096, grader: "exact" };
export const LOCKED = lockedEvaluationSchema.parse({ promotion: { ...split, dataset: "promotion" }, sealed: { ...split, dataset: "sealed" } });

export interface FindingSpec {
  source: string;
  level?: Level;
  counts?: Record<string, number>;
}

/** A health report with exactly these findings over these metrics, as the default health rules would title them. */
export function report(findings: readonly FindingSpec[], metrics: Partial<BranchMetrics> = {}): HealthReport {
  const layers: HealthReport["layers"] = { score: [], signal: [], behaviour: [] };
  for (const f of findings) {
    const rule = DEFAULT_HEALTH_RULES.find((r) => r.id === f.source);
    const layer = rule?.layer ?? "behaviour";
    const finding: Finding = {
      layer,
      level: f.level ?? rule?.level ?? "INFO",
      source: f.source,
      title: rule?.description ?? f.source,
      evidence: { metrics: {}, counts: f.counts ?? {}, exampleUids: [] },
    };
    layers[layer].push(finding);
  }
  const all = Object.values(layers).flat();
  return {
    harnessVersion: 1,
    metrics: { ...computeMetrics([], []).metrics, ...metrics },
    layers,
    worst: all.some((f) => f.level === "CRIT") ? "CRIT" : all.some((f) => f.level === "WARN") ? "WARN" : "OK",
    ruleErrors: [],
  };
}

/** A label's census finding with its rate in the metrics. */
export function labelled(label: string, rate: number): { finding: FindingSpec; metrics: Partial<BranchMetrics> } {
  return { finding: { source: `label:${label}`, counts: { [label]: Math.round(rate * 100) } }, metrics: { rollouts: 100, label_rate: { [label]: rate } } };
}

export function input(overrides: Partial<ProposerInput> = {}): ProposerInput {
  return {
    domain: "swe",
    report: report([]),
    recipe: defaultRecipe(),
    factors: FACTOR_PATTERNS,
    // The gym's answer: it renders every recipe.
    renders: () => ({ ok: true }),
    lineage: [],
    skills: [],
    k: 10,
    ...overrides,
  };
}
