import { deepEqual } from "./json-patch.ts";
import { formatPointer } from "./json-pointer.ts";

/**
 * A factor is one declared knob of the recipe. Patterns are pointer tokens where "*" stands for a
 * name (a reward component, an env flag, a trainer passthrough key). The most specific pattern wins,
 * so a weight change is `reward.components.format.weight` while adding a component is
 * `reward.components.format`.
 */
export interface FactorPattern {
  pattern: readonly string[];
  description: string;
  /** Where a run's trainer renders only some values: those it does (enumerated values, or the names a "*" takes). */
  values?: readonly string[];
}

export const FACTOR_PATTERNS: readonly FactorPattern[] = [
  { pattern: ["algo", "estimator"], description: "advantage estimator" },
  { pattern: ["algo", "lr"], description: "actor learning rate" },
  { pattern: ["algo", "kl", "mode"], description: "where the KL term goes: none, in the reward, in the loss" },
  { pattern: ["algo", "kl", "coef"], description: "KL coefficient" },
  { pattern: ["algo", "clip", "low"], description: "lower PPO clip ratio" },
  { pattern: ["algo", "clip", "high"], description: "upper PPO clip ratio (clip-higher)" },
  { pattern: ["algo", "entropyCoef"], description: "entropy bonus coefficient" },
  { pattern: ["algo", "groupSize"], description: "samples per prompt (GRPO group size)" },
  { pattern: ["algo", "temperature"], description: "rollout sampling temperature" },
  { pattern: ["algo", "maxResponseTokens"], description: "response length limit" },
  { pattern: ["algo", "maxTurns"], description: "turn limit of multi-turn episodes" },
  { pattern: ["algo", "lossAggregation"], description: "loss aggregation mode" },
  { pattern: ["reward", "components", "*", "weight"], description: "weight of one reward component" },
  { pattern: ["reward", "components", "*"], description: "add or remove a reward component" },
  { pattern: ["reward", "overlong"], description: "overlong reward shaping" },
  { pattern: ["data", "dynamicSampling"], description: "zero-variance group filter (dynamic sampling)" },
  { pattern: ["data", "overlongFilter"], description: "mask truncated samples out of the loss" },
  { pattern: ["data", "curriculum"], description: "difficulty curriculum" },
  { pattern: ["env", "*"], description: "one environment hardening flag" },
  { pattern: ["passthrough", "*", "*"], description: "one trainer passthrough key" },
];

/** Factor id of a recipe location: pattern tokens with "*" filled in, joined by ".". */
export function factorOf(tokens: readonly string[]): string | undefined {
  let best: FactorPattern | undefined;
  for (const f of FACTOR_PATTERNS) {
    if (f.pattern.length > tokens.length) continue;
    if (!f.pattern.every((p, i) => p === "*" || p === tokens[i])) continue;
    if (!best || f.pattern.length > best.pattern.length) best = f;
  }
  return best ? tokens.slice(0, best.pattern.length).join(".") : undefined;
}

/**
 * Whether a factor id (`reward.components.format.weight`) is one of `patterns`, the factors a run's
 * trainer can run. A trailing "*" takes the rest of the id, since passthrough keys hold dots.
 */
export function offersFactor(patterns: readonly FactorPattern[], factor: string): boolean {
  const tokens = factor.split(".");
  return patterns.some(({ pattern }) => {
    const fits = pattern.length === tokens.length || (pattern.at(-1) === "*" && tokens.length > pattern.length);
    return fits && pattern.every((p, i) => p === "*" || p === tokens[i]);
  });
}

export interface FactorChanges {
  factors: string[];
  /** Changed locations that belong to no declared factor, as JSON pointers. */
  unknown: string[];
}

/** Which factors differ between two recipes (compares values, so a patch that undoes itself changes nothing). */
export function changedFactors(before: unknown, after: unknown): FactorChanges {
  const factors = new Set<string>();
  const unknown: string[] = [];
  for (const tokens of changedLeaves(before, after, [])) {
    const f = factorOf(tokens);
    if (f === undefined) unknown.push(formatPointer(tokens));
    else factors.add(f);
  }
  return { factors: [...factors].sort(), unknown };
}

function changedLeaves(a: unknown, b: unknown, at: string[]): string[][] {
  const aObj = isPlainObject(a);
  const bObj = isPlainObject(b);
  // Descend while either side is an object and the other is an object or absent, so that adding a
  // whole section is reported key by key, at the level factors are declared.
  if ((aObj || a === undefined) && (bObj || b === undefined) && (aObj || bObj)) {
    const keys = new Set([...Object.keys(aObj ? a : {}), ...Object.keys(bObj ? b : {})]);
    return [...keys].flatMap((k) =>
      changedLeaves(aObj ? a[k] : undefined, bObj ? b[k] : undefined, [...at, k]),
    );
  }
  return deepEqual(a, b) ? [] : [at];
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
