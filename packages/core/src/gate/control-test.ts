import { mean, std } from "../stats.ts";
import { holm } from "./holm.ts";
import { seedSd, type NoiseFloor } from "./noise-floor.ts";
import { studentTQuantileUpper, studentTUpperTail } from "./student-t.ts";

/** One candidate against its round's control replicates: numbers a verdict prints. */
export interface ControlComparison {
  tasks: number;
  controls: number;
  /** Mean over tasks of (candidate - mean of the controls on that task). */
  delta: number;
  /** Standard error from the task-paired differences: evaluation noise. */
  seTask: number;
  /** Seed standard deviation of a branch's mean score (the noise floor); null without replicates. */
  seedSd: number | null;
  noiseDf: number;
  /** seedSd · sqrt(1 + 1/R): the seed noise of candidate minus the mean of R controls. */
  seSeed: number | null;
  se: number | null;
  /** Welch–Satterthwaite degrees of freedom of se. */
  df: number | null;
  t: number | null;
  /** One-sided p-value of "the candidate is not better than the control". */
  p: number;
  /** Holm's level for this candidate's p-value in its round, and its rank among K. */
  level: number;
  rank: number;
  family: number;
  /** The smallest delta that would have passed at this level: t quantile · se. */
  threshold: number | null;
  passed: boolean;
  reason: string;
}

interface CandidateTest {
  tasks: number;
  delta: number;
  seTask: number;
  seSeed: number | null;
  se: number | null;
  df: number | null;
  t: number | null;
  p: number;
  reason?: string;
}

function testOne(candidate: ReadonlyMap<string, number>, controls: readonly ReadonlyMap<string, number>[], floor: NoiseFloor): CandidateTest {
  const tasks = [...candidate.keys()].filter((t) => controls.every((c) => c.has(t))).sort();
  const diffs = tasks.map((t) => candidate.get(t)! - mean(controls.map((c) => c.get(t)!)));
  const n = diffs.length;
  const delta = mean(diffs);
  const seTask = n > 1 ? std(diffs, true) / Math.sqrt(n) : 0;
  const sd = seedSd(floor);
  if (controls.length === 0) return { tasks: n, delta: 0, seTask: 0, seSeed: null, se: null, df: null, t: null, p: 1, reason: "no control branch finished training this round" };
  if (n < 2) return { tasks: n, delta, seTask, seSeed: null, se: null, df: null, t: null, p: 1, reason: `only ${n} task(s) shared with the control` };
  if (sd === undefined) return { tasks: n, delta, seTask, seSeed: null, se: null, df: null, t: null, p: 1, reason: "no seed-noise estimate yet: no round has had two control replicates" };
  const seSeed = sd * Math.sqrt(1 + 1 / controls.length);
  const se = Math.sqrt(seSeed ** 2 + seTask ** 2);
  const partSeed = seSeed ** 4 / floor.df;
  const partTask = seTask ** 4 / (n - 1);
  const df = partSeed + partTask > 0 ? se ** 4 / (partSeed + partTask) : floor.df + n - 1;
  if (se === 0) return { tasks: n, delta, seTask, seSeed, se, df, t: null, p: delta > 0 ? 0 : 1 };
  const t = delta / se;
  return { tasks: n, delta, seTask, seSeed, se, df, t, p: studentTUpperTail(t, df) };
}

/**
 * The seed-aware gate for one round: every candidate is paired by task with the mean of the round's
 * control replicates, and its difference is tested one-sided against the noise a different seed
 * alone produces (the carried noise floor, plus the task-level standard error), with Student's t
 * on Welch–Satterthwaite degrees of freedom. Holm's procedure over the round's K candidates keeps
 * the chance of promoting any null candidate at alpha.
 */
export function judgeRound(
  candidates: ReadonlyMap<string, ReadonlyMap<string, number>>,
  controls: readonly ReadonlyMap<string, number>[],
  floor: NoiseFloor,
  alpha: number,
): Map<string, ControlComparison> {
  const ids = [...candidates.keys()].sort();
  const tests = ids.map((id) => testOne(candidates.get(id)!, controls, floor));
  const levels = holm(tests.map((t) => t.p), alpha);
  const sd = seedSd(floor);
  return new Map(
    ids.map((id, i) => {
      const t = tests[i]!;
      const { level, rank, rejected } = levels[i]!;
      const threshold = t.se !== null && t.df !== null ? studentTQuantileUpper(level, t.df) * t.se : null;
      const passed = t.reason === undefined && rejected;
      const reason =
        t.reason ??
        (passed
          ? `Δ ${t.delta.toFixed(4)} exceeds the threshold ${threshold!.toFixed(4)} (p ${t.p.toPrecision(3)} ≤ Holm level ${level.toPrecision(3)})`
          : `Δ ${t.delta.toFixed(4)} does not clear the seed noise: p ${t.p.toPrecision(3)} against Holm level ${level.toPrecision(3)}${threshold !== null ? `, threshold ${threshold.toFixed(4)}` : ""}`);
      const comparison: ControlComparison = {
        tasks: t.tasks,
        controls: controls.length,
        delta: t.delta,
        seTask: t.seTask,
        seedSd: sd ?? null,
        noiseDf: floor.df,
        seSeed: t.seSeed,
        se: t.se,
        df: t.df,
        t: t.t,
        p: t.p,
        level,
        rank,
        family: ids.length,
        threshold,
        passed,
        reason,
      };
      return [id, comparison];
    }),
  );
}
