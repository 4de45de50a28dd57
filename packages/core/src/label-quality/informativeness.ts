import { wilson, Z95 } from "./wilson.ts";

/** Counts of one label among failed and among successful rollouts. */
export interface FlagCounts {
  flaggedFailed: number;
  failed: number;
  flaggedSucceeded: number;
  succeeded: number;
}

export interface Informativeness {
  /** Flag rate among failed rollouts. */
  failedRate: number;
  /** Flag rate among successful rollouts. */
  succeededRate: number;
  /** failedRate − succeededRate. */
  difference: number;
  /** Newcombe's 95% interval of the difference. */
  interval: [number, number];
  /**
   * Which outcome the label marks: "failures" when it fires more on failed rollouts, "successes" when
   * more on successful ones (a hack that passes the reward), "none" when the interval holds 0 or a side
   * has no rollouts: the label does not tell failure from success.
   */
  separates: "failures" | "successes" | "none";
}

/**
 * How well a label separates failed from successful rollouts. The difference of the two rates gets
 * Newcombe's hybrid score interval (method 10, built from the two Wilson intervals), which keeps its
 * coverage at rates near 0 or 1, where labels live; a plain Wald interval would not.
 */
export function informativeness(counts: FlagCounts, z = Z95): Informativeness {
  const { flaggedFailed, failed, flaggedSucceeded, succeeded } = counts;
  const p1 = failed > 0 ? flaggedFailed / failed : 0;
  const p2 = succeeded > 0 ? flaggedSucceeded / succeeded : 0;
  const difference = p1 - p2;
  if (failed === 0 || succeeded === 0) return { failedRate: p1, succeededRate: p2, difference, interval: [-1, 1], separates: "none" };
  const [l1, u1] = wilson(flaggedFailed, failed, z);
  const [l2, u2] = wilson(flaggedSucceeded, succeeded, z);
  const lower = difference - Math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2);
  const upper = difference + Math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2);
  const separates = lower > 0 ? "failures" : upper < 0 ? "successes" : "none";
  return { failedRate: p1, succeededRate: p2, difference, interval: [lower, upper], separates };
}
