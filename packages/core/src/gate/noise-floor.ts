import { mean } from "../stats.ts";

/**
 * How much a branch's promotion score moves between training seeds with nothing changed: the
 * pooled within-round variance of control replicates' mean scores (sum of squares over degrees
 * of freedom). It is carried over the rounds that share a parent: a new parent is a new policy,
 * whose seed noise earlier rounds did not measure.
 */
export interface NoiseFloor {
  sumSquares: number;
  df: number;
  /** Control rounds that contributed (each with at least two replicates). */
  rounds: number;
}

export const NO_NOISE_FLOOR: NoiseFloor = { sumSquares: 0, df: 0, rounds: 0 };

/** Adds one round's control replicates (their mean promotion scores) to the floor carried so far. */
export function addControlRound(floor: NoiseFloor, replicateScores: readonly number[]): NoiseFloor {
  if (replicateScores.length < 2) return floor;
  const m = mean(replicateScores);
  const ss = replicateScores.reduce((acc, s) => acc + (s - m) ** 2, 0);
  return { sumSquares: floor.sumSquares + ss, df: floor.df + replicateScores.length - 1, rounds: floor.rounds + 1 };
}

/**
 * The seed standard deviation of one branch's mean score; undefined before any replicate. A score
 * moves in steps of `resolution` (1 / (tasks × samples per task)), so replicates that tie measured
 * no noise finer than one step, not an absence of noise: the estimate never reads below one step.
 */
export function seedSd(floor: NoiseFloor, resolution = 0): number | undefined {
  return floor.df > 0 ? Math.max(Math.sqrt(floor.sumSquares / floor.df), resolution) : undefined;
}
