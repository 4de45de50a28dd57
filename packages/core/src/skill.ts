import { z } from "zod";
import { compileRule } from "./cel/compile.ts";
import { T } from "./cel/types.ts";
import { domainSchema } from "./harness/detector.ts";
import { METRIC_VARIABLES, metricBindings } from "./harness/health-rule.ts";
import type { BranchMetrics } from "./harness/metrics.ts";
import { interventionSchema } from "./intervention.ts";

/** One verified application: the branch, its score change vs its parent, and how far the targeted metric moved. */
export const skillEvidenceSchema = z.strictObject({
  runId: z.string(),
  branchId: z.string(),
  delta: z.number(),
  parentBranchId: z.string().optional(),
  // The paired-bootstrap interval of `delta` on the promotion split.
  ci: z.tuple([z.number(), z.number()]).optional(),
  targetDelta: z.number().optional(),
});
export type SkillEvidence = z.infer<typeof skillEvidenceSchema>;

/** Reusable knowledge from verified interventions, retrieved by proposers when its trigger fires. */
export const skillSchema = z.strictObject({
  id: z.string().min(1),
  name: z.string().min(1),
  // CEL over branch metrics, checked like a health rule.
  trigger: z.string().min(1),
  template: interventionSchema.omit({ provenance: true }),
  expectedOutcome: z.string().min(1),
  evidence: z.array(skillEvidenceSchema).default([]),
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
  return skills
    .filter((s) => s.domains.includes(domain))
    .filter((s) => triggerFires(s.trigger, metrics))
    .sort((a, b) => trackRecord(b) - trackRecord(a) || a.id.localeCompare(b.id));
}

/** Laplace-smoothed success rate of a skill. */
export function trackRecord(s: Pick<Skill, "successes" | "failures">): number {
  return (s.successes + 1) / (s.successes + s.failures + 2);
}

/** Whether a trigger holds on these metrics; one that does not compile or errors does not fire. */
export function triggerFires(trigger: string, metrics: BranchMetrics): boolean {
  const c = compileRule(trigger, { variables: METRIC_VARIABLES, expect: T.bool });
  if (!c.ok) return false;
  const out = c.rule.evaluate(metricBindings(metrics));
  return out.ok && out.value === true;
}
