import type { GatePolicy } from "../harness/harness.ts";
import { critFindings, type HealthReport } from "../harness/health-report.ts";
import type { Check } from "../verdict.ts";

/**
 * The gate for a run's first branch, which has no parent to be compared with: only its own health
 * and validity-label rates are judged. It stays the reference either way; failing here marks it
 * as a branch not to build trust on (e.g. a reward that is being hacked).
 */
export function baselineChecks(report: Pick<HealthReport, "metrics" | "layers">, policy: GatePolicy): Check[] {
  const crit = critFindings(report);
  const checks: Check[] = [
    {
      name: "no_new_crit",
      passed: crit.length === 0,
      detail: crit.length === 0 ? "no CRIT finding" : `CRIT findings: ${crit.join(", ")}`,
      numbers: { newCrit: crit.length, findings: crit.join(",") },
    },
  ];
  for (const [label, limit] of Object.entries(policy.validityLimits).sort()) {
    const rate = report.metrics.label_rate[label] ?? 0;
    checks.push({ name: "validity_limit", passed: rate <= limit, detail: `${label} rate ${rate.toFixed(3)}, limit ${limit}`, numbers: { label, rate, limit } });
  }
  return checks;
}
