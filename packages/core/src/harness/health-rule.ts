import { z } from "zod";
import type { CelInput } from "@bufbuild/cel";
import { compileRule, type CompiledRule, type RuleRejectionReason } from "../cel/compile.ts";
import type { RuleLimits } from "../cel/guards.ts";
import { T, type VariableSchema } from "../cel/types.ts";
import type { BranchMetrics } from "./metrics.ts";

export const layerSchema = z.enum(["score", "signal", "behaviour"]);
export type Layer = z.infer<typeof layerSchema>;

export const healthRuleSchema = z.strictObject({
  id: z.string().regex(/^[a-z][a-z0-9_.-]*$/),
  version: z.number().int().positive(),
  level: z.enum(["WARN", "CRIT"]),
  layer: layerSchema,
  description: z.string().min(1),
  when: z.string().min(1),
});
export type HealthRule = z.infer<typeof healthRuleSchema>;

/** What a health rule (or a skill trigger) can read: the branch metrics by their names. */
export const METRIC_VARIABLES: VariableSchema = {
  rollouts: T.double,
  groups: T.double,
  reward_mean: T.double,
  reward_std: T.double,
  pass_rate: T.double,
  dead_group_ratio: T.double,
  truncation_rate: T.double,
  length_reward_corr: T.double,
  mean_response_tokens: T.double,
  label_rate: T.map(T.string, T.double),
  label_count: T.map(T.string, T.double),
  trainer: T.map(T.string, T.double),
};

export function metricBindings(m: BranchMetrics): Record<string, CelInput> {
  return { ...m };
}

export interface CompiledHealthRule {
  definition: HealthRule;
  rule: CompiledRule;
}

export function compileHealthRule(
  def: HealthRule,
  limits?: Partial<RuleLimits>,
): { ok: true; rule: CompiledHealthRule } | { ok: false; reason: RuleRejectionReason; message: string } {
  const c = compileRule(def.when, { variables: METRIC_VARIABLES, expect: T.bool, limits });
  return c.ok ? { ok: true, rule: { definition: def, rule: c.rule } } : c;
}

/** Health rules every harness starts from; thresholds follow common GRPO practice. */
export const DEFAULT_HEALTH_RULES: readonly HealthRule[] = [
  { id: "dead-groups-crit", version: 1, level: "CRIT", layer: "signal", description: "Most GRPO groups carry no signal", when: "dead_group_ratio > 0.5" },
  { id: "dead-groups-warn", version: 1, level: "WARN", layer: "signal", description: "Many GRPO groups carry no signal", when: "dead_group_ratio > 0.2 && dead_group_ratio <= 0.5" },
  { id: "truncation-crit", version: 1, level: "CRIT", layer: "behaviour", description: "Most responses hit the length limit", when: "truncation_rate > 0.5" },
  { id: "truncation-warn", version: 1, level: "WARN", layer: "behaviour", description: "Many responses hit the length limit", when: "truncation_rate > 0.1 && truncation_rate <= 0.5" },
  { id: "reward-flat", version: 1, level: "WARN", layer: "score", description: "Rewards barely vary: nothing to learn from", when: "rollouts > 0.0 && reward_std < 0.01" },
  { id: "length-hacking", version: 1, level: "WARN", layer: "signal", description: "Longer responses earn more reward", when: "length_reward_corr > 0.5" },
  { id: "entropy-collapse", version: 1, level: "WARN", layer: "signal", description: "Policy entropy collapsed", when: "'entropy' in trainer && trainer['entropy'] < 0.05" },
  { id: "validity-violations", version: 1, level: "CRIT", layer: "behaviour", description: "Rollouts game the checks (tests edited, history mined, output hard-coded)", when: "label_rate.exists(k, k in ['test_tampering', 'git_history_leak', 'hardcoded_output'] && label_rate[k] > 0.0)" },
];
