import { compileRule } from "../cel/compile.ts";
import { T } from "../cel/types.ts";
import { contentHash } from "../content-hash.ts";
import type { Domain } from "../harness/detector.ts";
import { METRIC_VARIABLES, type HealthRule } from "../harness/health-rule.ts";
import type { HealthReport } from "../harness/health-report.ts";
import type { Intervention } from "../intervention.ts";
import { skillSchema, triggerFires, type Skill, type SkillEvidence } from "../skill.ts";
import type { Verdict } from "../verdict.ts";
import { motivatingFindings, skillTrigger } from "./skill-trigger.ts";

/** A finished branch as skills learn from it. */
export interface SkillSource {
  runId: string;
  branchId: string;
  parentBranchId?: string;
  domain: Domain;
  intervention: Intervention;
  /** The parent's health report: the findings that motivated the intervention are read from it. */
  report: Pick<HealthReport, "layers" | "metrics">;
  /** Health rules of the harness that wrote the report, so a finding's trigger is its own rule. */
  healthRules: readonly HealthRule[];
  verdict: Verdict;
}

export type CreateSkillResult =
  | { ok: true; skill: Skill }
  | { ok: false; reason: "not_verified" | "no_trigger" | "invalid_trigger"; message: string };

/** The evidence a branch adds to a skill: its score change with interval, and how far the targeted metric moved. */
export function skillEvidence(source: Pick<SkillSource, "runId" | "branchId" | "parentBranchId" | "verdict">): SkillEvidence {
  const { vsParent, checks } = source.verdict;
  const moved = checks.find((c) => c.name === "targeted_metric")?.numbers["delta"];
  return {
    runId: source.runId,
    branchId: source.branchId,
    delta: vsParent.delta,
    ...(source.parentBranchId !== undefined ? { parentBranchId: source.parentBranchId } : {}),
    ci: [vsParent.ci[0], vsParent.ci[1]],
    ...(typeof moved === "number" ? { targetDelta: moved } : {}),
  };
}

/**
 * A skill from a verified success: the trigger from the findings that motivated the intervention,
 * the intervention as its template, the outcome the gate measured, and the branch as evidence. Only
 * a promoted branch qualifies, and the trigger must hold on the very metrics it came from.
 */
export function createSkill(source: SkillSource): CreateSkillResult {
  const { intervention, report, verdict } = source;
  if (!verdict.promote) {
    return { ok: false, reason: "not_verified", message: `branch ${source.branchId} was not promoted; only a verified success becomes a skill` };
  }
  const findings = motivatingFindings(report, intervention, source.healthRules);
  const trigger = skillTrigger(findings, source.healthRules, report, intervention);
  if (trigger === undefined) {
    return { ok: false, reason: "no_trigger", message: `no finding and no reported value of ${intervention.targetMetric} to build a trigger from` };
  }
  const compiled = compileRule(trigger, { variables: METRIC_VARIABLES, expect: T.bool });
  if (!compiled.ok) return { ok: false, reason: "invalid_trigger", message: `${trigger}: ${compiled.message}` };
  if (!triggerFires(trigger, report.metrics)) {
    return { ok: false, reason: "invalid_trigger", message: `${trigger} does not hold on the parent's metrics it was built from` };
  }

  const { provenance: _provenance, ...template } = intervention;
  const evidence = skillEvidence(source);
  const targetMoved = evidence.targetDelta === undefined ? "" : `${intervention.targetMetric} moved ${evidence.targetDelta.toFixed(4)}; `;
  const why = findings.length > 0 ? findings.map((f) => f.source).join(" + ") : intervention.targetMetric;
  return {
    ok: true,
    skill: skillSchema.parse({
      id: `skill-${contentHash({ factor: template.factor, patch: template.patch, trigger }).slice(0, 12)}`,
      name: `${template.factor} when ${why}`,
      trigger,
      template,
      expectedOutcome:
        `${intervention.targetMetric} ${intervention.expectedEffect.direction}; ${targetMoved}` +
        `score Δ ${evidence.delta.toFixed(4)} vs parent, CI [${evidence.ci![0].toFixed(4)}, ${evidence.ci![1].toFixed(4)}]`,
      evidence: [evidence],
      domains: [source.domain],
      successes: 1,
      failures: 0,
    }),
  };
}
