import { compileHealthRule, type HealthRule } from "../harness/health-rule.ts";
import type { Finding, HealthReport } from "../harness/health-report.ts";
import type { Intervention } from "../intervention.ts";
import { metricValue } from "../verdict.ts";

const MAP_METRICS = new Set(["label_rate", "label_count", "trainer"]);

/**
 * Findings of a report that read the intervention's targeted metric by name: what motivated it.
 * A rule that only iterates a map (validity-violations over every label) names no key, so it does
 * not claim a label-targeted intervention; the label's own census entry does.
 */
export function motivatingFindings(
  report: Pick<HealthReport, "layers">,
  intervention: Pick<Intervention, "targetMetric">,
  rules: readonly HealthRule[],
): Finding[] {
  const target = intervention.targetMetric;
  const [head, ...rest] = target.split(".");
  const key = rest.join(".");
  return Object.values(report.layers)
    .flat()
    .filter((f) => {
      if (head === "label_rate" && f.source === `label:${key}`) return true;
      const rule = rules.find((r) => r.id === f.source);
      if (!rule) return false;
      const c = compileHealthRule(rule);
      if (!c.ok) return false;
      const { variables, keys } = c.rule.rule;
      return MAP_METRICS.has(head!) && key ? (keys[head!] ?? []).includes(key) : variables.includes(target);
    });
}

/**
 * A CEL trigger over metrics for the situation these findings describe: the rule that raised each
 * finding, or for a label census entry a rate of at least half the one observed. Findings are
 * joined by "&&": the skill was verified when all of them held. Without any finding the trigger is
 * the targeted metric on the side of its observed value the intervention moved it away from.
 */
export function skillTrigger(
  findings: readonly Finding[],
  rules: readonly HealthRule[],
  report: Pick<HealthReport, "metrics">,
  intervention: Pick<Intervention, "targetMetric" | "expectedEffect">,
): string | undefined {
  const terms: string[] = [];
  for (const f of findings) {
    const rule = rules.find((r) => r.id === f.source);
    if (rule) terms.push(`(${rule.when})`);
    else if (f.source.startsWith("label:")) {
      const name = `label_rate.${f.source.slice("label:".length)}`;
      const term = thresholdTerm(name, metricValue(report.metrics, name) ?? 0, true);
      if (term) terms.push(term);
    }
  }
  if (terms.length === 0) {
    const value = metricValue(report.metrics, intervention.targetMetric);
    const term = value === undefined ? undefined : thresholdTerm(intervention.targetMetric, value, intervention.expectedEffect.direction === "down");
    if (term) terms.push(term);
  }
  return terms.length === 0 ? undefined : [...new Set(terms)].join(" && ");
}

// `high`: the problem is the metric being high, so the trigger holds from half the observed value up;
// otherwise it holds up to half again above it. Bounds are rounded outward so the trigger holds on
// the very metrics it came from.
function thresholdTerm(metric: string, value: number, high: boolean): string | undefined {
  const read = metricExpr(metric);
  if (read === undefined) return undefined;
  if (high) {
    const bound = Math.floor((value / 2) * 1e4) / 1e4;
    return bound <= 0 ? `${read.guard}${read.value} > 0.0)` : `${read.guard}${read.value} >= ${double(bound)})`;
  }
  return `${read.guard}${read.value} <= ${double(Math.ceil((value + Math.abs(value) / 2) * 1e4) / 1e4)})`;
}

function metricExpr(metric: string): { guard: string; value: string } | undefined {
  const [head, ...rest] = metric.split(".");
  const key = rest.join(".");
  if (MAP_METRICS.has(head!) && key) {
    if (!/^[\w/.-]+$/.test(key)) return undefined;
    return { guard: `('${key}' in ${head} && `, value: `${head}['${key}']` };
  }
  return /^[a-z_]+$/.test(metric) ? { guard: "(", value: metric } : undefined;
}

// CEL compares doubles with doubles: an integral bound still needs its decimal point.
function double(x: number): string {
  return Number.isInteger(x) ? x.toFixed(1) : String(x);
}
