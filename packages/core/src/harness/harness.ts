import { z } from "zod";
import type { Rollout } from "@evotrainer/contract";
import type { RuleLimits } from "../cel/guards.ts";
import { compileDetector, detectorSchema, type CompiledDetector, type Domain, type Label } from "./detector.ts";
import { labelQualityRequirementSchema } from "../label-quality/label-quality-gate.ts";
import { compileHealthRule, healthRuleSchema, type CompiledHealthRule } from "./health-rule.ts";
import { rolloutBindings, type InputCaps, type RolloutContext } from "./rollout-variables.ts";

export const gatePolicySchema = z.strictObject({
  // Bootstrap confidence level and resamples for the paired comparison on the promotion split.
  confidence: z.number().gt(0.5).lt(1).default(0.95),
  resamples: z.number().int().min(100).default(2000),
  // How far (in score units) a candidate may trail the best-so-far branch and still count as not regressed.
  regressionMargin: z.number().nonnegative().default(0.01),
  // Maximum rate per validity label on the candidate's promotion rollouts.
  validityLimits: z.record(z.string(), z.number().min(0).max(1)).default({}),
  successThreshold: z.number().default(0.5),
  // The smallest gain over the control (score units) worth promoting: the gate tests Δ > minEffect.
  minEffect: z.number().min(0).max(1).default(0.01),
  // The fewest degrees of freedom of the seed-noise estimate a round is judged on; with fewer the
  // verdict says there are not enough controls to judge and a person decides.
  minNoiseDf: z.number().int().min(1).default(2),
  // Reviewed quality a label needs before a validity limit or a targeted metric acts on it alone;
  // without it the branch goes to a person with the reason (docs/label-review.md).
  labelQuality: labelQualityRequirementSchema.optional(),
});
export type GatePolicy = z.infer<typeof gatePolicySchema>;

/** A versioned diagnostic bundle: detectors, health rules and the gate policy. */
export const harnessSchema = z.strictObject({
  version: z.number().int().positive(),
  detectors: z.array(detectorSchema),
  healthRules: z.array(healthRuleSchema),
  gate: gatePolicySchema.default(gatePolicySchema.parse({})),
});
export type HarnessDefinition = z.input<typeof harnessSchema>;
export type Harness = z.infer<typeof harnessSchema>;

export interface HarnessRejection {
  kind: "detector" | "health_rule";
  id: string;
  reason: string;
  message: string;
}

export interface LabelRun {
  labels: Label[];
  errors: { rolloutUid: string; detectorId: string; error: string }[];
}

export interface CompiledHarness {
  definition: Harness;
  detectors: CompiledDetector[];
  healthRules: CompiledHealthRule[];
  /** Runs the detectors that apply to `domain` on each rollout; bindings are built once per rollout. */
  label(rollouts: Iterable<Rollout>, domain: Domain, context?: RolloutContext, caps?: InputCaps): LabelRun;
}

/**
 * Compiles every rule of a harness version once. Any rejected rule rejects the version: a harness
 * is registered whole or not at all.
 */
export function compileHarness(
  input: HarnessDefinition,
  limits?: Partial<RuleLimits>,
): { ok: true; harness: CompiledHarness } | { ok: false; rejections: HarnessRejection[] } {
  const definition = harnessSchema.parse(input);
  const rejections: HarnessRejection[] = [];
  const detectors: CompiledDetector[] = [];
  for (const d of definition.detectors) {
    const c = compileDetector(d, limits);
    if (c.ok) detectors.push(c.detector);
    else rejections.push({ kind: "detector", id: d.id, reason: c.reason, message: `${c.field}: ${c.message}` });
  }
  const healthRules: CompiledHealthRule[] = [];
  for (const h of definition.healthRules) {
    const c = compileHealthRule(h, limits);
    if (c.ok) healthRules.push(c.rule);
    else rejections.push({ kind: "health_rule", id: h.id, reason: c.reason, message: c.message });
  }
  const ids = [...definition.detectors.map((d) => d.id), ...definition.healthRules.map((h) => h.id)];
  const dup = ids.find((id, i) => ids.indexOf(id) !== i);
  if (dup) rejections.push({ kind: "detector", id: dup, reason: "duplicate_id", message: `id ${dup} is used twice` });
  if (rejections.length > 0) return { ok: false, rejections };

  return {
    ok: true,
    harness: {
      definition,
      detectors,
      healthRules,
      label(rollouts, domain, context, caps) {
        const active = detectors.filter((d) => d.definition.domains.includes(domain));
        const run: LabelRun = { labels: [], errors: [] };
        for (const r of rollouts) {
          const bindings = rolloutBindings(r, context, caps);
          for (const d of active) {
            const out = d.apply(r.uid, bindings);
            if (out.label) run.labels.push(out.label);
            if (out.error !== undefined) run.errors.push({ rolloutUid: r.uid, detectorId: d.definition.id, error: out.error });
          }
        }
        return run;
      },
    },
  };
}

/** Uids of rollouts that a validity detector flagged: they count as failures whatever their reward. */
export function invalidRollouts(labels: Iterable<Label>): Set<string> {
  const out = new Set<string>();
  for (const l of labels) if (l.validity) out.add(l.rolloutUid);
  return out;
}
