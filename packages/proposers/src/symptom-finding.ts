import type { Finding, HealthReport } from "@evotrainer/core";
import type { Symptom } from "./playbook-rule.ts";

const SEVERITY = { CRIT: 2, WARN: 1, INFO: 0 } as const;

export function severity(f: Finding): number {
  return SEVERITY[f.level];
}

/** The most severe finding of the report that shows this symptom, if any. */
export function symptomFinding(symptom: Symptom, report: HealthReport): Finding | undefined {
  const { label } = symptom;
  if (label !== undefined && (report.metrics.label_rate[label] ?? 0) < (symptom.minRate ?? Number.MIN_VALUE)) return undefined;
  return Object.values(report.layers)
    .flat()
    .filter((f) => symptom.sources.includes(f.source) && (label === undefined || (f.evidence.counts[label] ?? 0) > 0))
    .sort((a, b) => severity(b) - severity(a))[0];
}
