import { z } from "zod";
import { compileRule } from "./cel/compile.ts";
import { T } from "./cel/types.ts";
import { domainSchema } from "./harness/detector.ts";
import { METRIC_VARIABLES, metricBindings } from "./harness/health-rule.ts";
import type { BranchMetrics } from "./harness/metrics.ts";
import { interventionSchema } from "./intervention.ts";

/** Reusable knowledge from verified interventions, retrieved by proposers when its trigger fires. */
export const skillSchema = z.strictObject({
  id: z.string().min(1),
  name: z.string().min(1),
  // CEL over branch metrics, checked like a health rule.
  trigger: z.string().min(1),
  template: interventionSchema.omit({ provenance: true }),
  expectedOutcome: z.string().min(1),
  evidence: z.array(z.strictObject({ runId: z.string(), branchId: z.string(), delta: z.number() })).default([]),
  domains: z.array(domainSchema).min(1),
  successes: z.number().int().nonnegative().default(0),
  failures: z.number().int().nonnegative().default(0),
});
export type Skill = z.infer<typeof skillSchema>;

/**
 * Skills whose trigger fires on these metrics, best track record first (Laplace-smoothed success
 * rate, so an untried skill is neither trusted nor dismissed). A trigger that does not compile or
 * errors does not fire.
 */
export function matchingSkills(skills: readonly Skill[], metrics: BranchMetrics, domain: Skill["domains"][number]): Skill[] {
  const bindings = metricBindings(metrics);
  const score = (s: Skill) => (s.successes + 1) / (s.successes + s.failures + 2);
  return skills
    .filter((s) => s.domains.includes(domain))
    .filter((s) => {
      const c = compileRule(s.trigger, { variables: METRIC_VARIABLES, expect: T.bool });
      if (!c.ok) return false;
      const out = c.rule.evaluate(bindings);
      return out.ok && out.value === true;
    })
    .sort((a, b) => score(b) - score(a) || a.id.localeCompare(b.id));
}
