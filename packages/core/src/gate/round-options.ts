import type { RunConfig } from "../run-config.ts";
import type { RoundTestOptions } from "./control-test.ts";
import { roundAlpha } from "./alpha-spending.ts";

/**
 * How a run's config has a round judged: its share of the run's alpha (spent linearly over
 * budget.rounds), the minimum effect and noise df, and the promotion split's samples per task.
 * The worker and the gate trials both take their settings from here.
 */
export function roundTestOptions(config: Pick<RunConfig, "gate" | "budget" | "evaluation">, round: { round: number; spentBefore: number; untested: number }): RoundTestOptions {
  return {
    alpha: roundAlpha({ alpha: runAlpha(config), rounds: config.budget.rounds, round: round.round, spentBefore: round.spentBefore }),
    minEffect: config.gate.minEffect,
    minNoiseDf: config.gate.minNoiseDf,
    samplesPerTask: config.evaluation.promotion.samplesPerTask,
    untested: round.untested,
  };
}

/** The chance of any false promotion the whole run may take; rounded, as 1 − 0.95 is 0.050000000000000044. */
export function runAlpha(config: Pick<RunConfig, "gate">): number {
  return Number((1 - config.gate.confidence).toFixed(12));
}
