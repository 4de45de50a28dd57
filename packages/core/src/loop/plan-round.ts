import type { Rollout } from "@evotrainer/contract";
import { applyIntervention } from "../apply-intervention.ts";
import { backtest, type BacktestReport } from "../backtest.ts";
import { offersFactor, type FactorPattern } from "../factors.ts";
import type { Label } from "../harness/detector.ts";
import type { Intervention } from "../intervention.ts";
import type { LockedEvaluation } from "../locked-evaluation.ts";
import type { RenderCheck } from "../offered-factors.ts";
import { recipeHash, type Recipe } from "../recipe.ts";

export interface PlanRoundInput {
  parentRecipe: Recipe;
  locked: LockedEvaluation;
  /** What the proposer returned, in its order of preference. */
  proposals: readonly Intervention[];
  /** The parent's logged training rollouts and their labels: what every backtest replays. */
  parentRollouts: readonly Rollout[];
  parentLabels: readonly Label[];
  /** Recipes already trained from this parent: proposing one again would repeat an experiment. */
  triedRecipeHashes: ReadonlySet<string>;
  /** B: how many of the backtested interventions become branches. */
  keep: number;
  successThreshold?: number;
  /** The factors the run's trainer can run (what the proposer was offered); others are refused here. */
  factors?: readonly FactorPattern[];
  /** The run's trainer rendering a recipe (a dry run): a proposal whose recipe it refuses is refused here. */
  renders?: RenderCheck;
}

export type PlannedIntervention =
  | { intervention: Intervention; status: "rejected"; reason: string; message: string }
  | { intervention: Intervention; status: "backtested"; recipe: Recipe; recipeHash: string; backtest: BacktestReport; rank: number; kept: boolean };

/**
 * One round's design step: every proposal passes the single-factor and locked-evaluation checks,
 * is backtested on the parent's rollouts, and the best B by prediction are kept. Predictions that
 * agree with the proposal's own expectation rank first, then larger predicted effects.
 */
export function planRound(input: PlanRoundInput): PlannedIntervention[] {
  const seen = new Set(input.triedRecipeHashes);
  seen.add(recipeHash(input.parentRecipe));
  const planned: PlannedIntervention[] = input.proposals.map((intervention) => {
    const applied = applyIntervention(input.parentRecipe, intervention, input.locked);
    if (!applied.ok) return { intervention, status: "rejected", reason: applied.reason, message: applied.message };
    if (input.factors && !offersFactor(input.factors, intervention.factor)) {
      return { intervention, status: "rejected", reason: "unsupported_factor", message: `the run's trainer cannot run factor ${intervention.factor}` };
    }
    const rendered = input.renders?.(applied.recipe);
    if (rendered && !rendered.ok) return { intervention, status: "rejected", reason: "unsupported_value", message: rendered.message };
    const hash = recipeHash(applied.recipe);
    if (seen.has(hash)) {
      return { intervention, status: "rejected", reason: "already_tried", message: "this recipe was already trained from this parent (or is the parent's own)" };
    }
    seen.add(hash);
    const report = backtest({
      parent: input.parentRecipe,
      candidate: applied.recipe,
      intervention,
      rollouts: input.parentRollouts,
      labels: input.parentLabels,
      successThreshold: input.successThreshold,
    });
    return { intervention, status: "backtested", recipe: applied.recipe, recipeHash: hash, backtest: report, rank: 0, kept: false };
  });

  const backtested = planned.filter((p) => p.status === "backtested");
  const order = [...backtested].sort(
    (a, b) =>
      Number(b.backtest.predicted.agreesWithExpectation) - Number(a.backtest.predicted.agreesWithExpectation) ||
      Math.abs(b.backtest.predicted.size) - Math.abs(a.backtest.predicted.size),
  );
  order.forEach((p, index) => {
    p.rank = index + 1;
    p.kept = index < input.keep;
  });
  return planned;
}
