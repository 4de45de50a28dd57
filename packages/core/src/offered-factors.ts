import { FACTOR_PATTERNS, type FactorPattern } from "./factors.ts";
import { algoSchema, estimatorSchema, lossAggregationSchema, type Recipe } from "./recipe.ts";

/** A trainer's answer to "does a job of this recipe render?": its adapter's dry run (no IO). */
export type RenderOutcome = { ok: true } | { ok: false; factor: string; message: string };
export type RenderCheck = (recipe: Recipe) => RenderOutcome;

/** One value a factor can be given on a parent recipe; `value` names it when the factor offers a choice. */
export interface FactorTrial {
  pattern: FactorPattern;
  value?: string;
  recipe: Recipe;
}

/**
 * Every single-factor change a proposer could make to `recipe`: each other value of an enumerated
 * factor, the other side of each switch, one in-range change of each number (a trainer takes all of
 * a number's values or none), each reward component's weight, adding or removing each of
 * `componentNames` and the recipe's own components, and each environment flag. Passthrough keys are
 * free-form, so they have no trial.
 */
export function factorTrials(recipe: Recipe, componentNames: readonly string[]): FactorTrial[] {
  const trials: FactorTrial[] = [];
  const at = (id: string) => FACTOR_PATTERNS.find((f) => f.pattern.join(".") === id)!;
  const trial = (id: string, change: (r: Recipe) => void, value?: string) => {
    const changed = structuredClone(recipe);
    change(changed);
    trials.push({ pattern: at(id), recipe: changed, ...(value !== undefined ? { value } : {}) });
  };
  const { algo } = recipe;
  for (const v of estimatorSchema.options) if (v !== algo.estimator) trial("algo.estimator", (r) => (r.algo.estimator = v), v);
  for (const v of algoSchema.shape.kl.shape.mode.options) if (v !== algo.kl.mode) trial("algo.kl.mode", (r) => (r.algo.kl.mode = v), v);
  for (const v of lossAggregationSchema.options) if (v !== algo.lossAggregation) trial("algo.lossAggregation", (r) => (r.algo.lossAggregation = v), v);
  trial("algo.lr", (r) => (r.algo.lr = algo.lr / 2));
  trial("algo.kl.coef", (r) => (r.algo.kl.coef = algo.kl.coef * 2 + 0.001));
  trial("algo.clip.low", (r) => (r.algo.clip.low = algo.clip.low / 2));
  trial("algo.clip.high", (r) => (r.algo.clip.high = algo.clip.high * 2 <= 10 ? algo.clip.high * 2 : algo.clip.high / 2));
  trial("algo.entropyCoef", (r) => (r.algo.entropyCoef = algo.entropyCoef + 0.001));
  trial("algo.groupSize", (r) => (r.algo.groupSize = algo.groupSize < 1024 ? algo.groupSize + 1 : algo.groupSize - 1));
  trial("algo.temperature", (r) => (r.algo.temperature = algo.temperature * 2 <= 2 ? algo.temperature * 2 : algo.temperature / 2));
  trial("algo.maxResponseTokens", (r) => (r.algo.maxResponseTokens = algo.maxResponseTokens * 2));
  trial("algo.maxTurns", (r) => (r.algo.maxTurns = algo.maxTurns + 1));
  const components = recipe.reward.components;
  for (const name of Object.keys(components)) trial("reward.components.*.weight", (r) => (r.reward.components[name]!.weight = components[name]!.weight + 1), name);
  for (const name of new Set([...Object.keys(components), ...componentNames])) {
    // A reward needs one component at least, so a recipe's only one cannot be removed.
    if (name in components && Object.keys(components).length === 1) continue;
    trial("reward.components.*", (r) => (name in components ? delete r.reward.components[name] : (r.reward.components[name] = { weight: 1 })), name);
  }
  trial("reward.overlong", (r) => (r.reward.overlong.enabled = !recipe.reward.overlong.enabled));
  trial("data.dynamicSampling", (r) => (r.data.dynamicSampling.enabled = !recipe.data.dynamicSampling.enabled));
  trial("data.overlongFilter", (r) => (r.data.overlongFilter = !recipe.data.overlongFilter));
  trial("data.curriculum", (r) => (r.data.curriculum.enabled = !recipe.data.curriculum.enabled));
  for (const flag of Object.keys(recipe.env) as (keyof Recipe["env"])[]) trial("env.*", (r) => (r.env[flag] = !recipe.env[flag]), flag);
  return trials;
}

/**
 * The factors a proposer is offered on `recipe`: those with a trial that the run's trainer renders,
 * and for a factor with a choice (an estimator, a component name, an environment flag) only the
 * values that render. A factor without trials (passthrough keys) is offered as it is; a proposal's
 * own recipe is rendered again before it becomes a branch (planRound's `renders`).
 */
export function offeredFactors(recipe: Recipe, renders: RenderCheck, componentNames: readonly string[]): FactorPattern[] {
  const trials = factorTrials(recipe, componentNames);
  return FACTOR_PATTERNS.flatMap((factor) => {
    if (factor.pattern[0] === "passthrough") return [factor];
    const own = trials.filter((t) => t.pattern === factor);
    const rendered = own.filter((t) => renders(t.recipe).ok);
    if (rendered.length === 0) return [];
    return rendered[0]!.value === undefined ? [factor] : [{ ...factor, values: rendered.map((t) => t.value!) }];
  });
}
