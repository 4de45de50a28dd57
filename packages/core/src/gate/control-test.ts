import { mean, meanOfSet, std } from "../stats.ts";
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
  /** One-sided p-value of "the candidate beats the control by no more than minEffect". */
  p: number;
  /** The smallest effect worth promoting (gate.minEffect): the null hypothesis is Δ ≤ minEffect. */
  minEffect: number;
  /** The one-sided lower confidence bound of Δ at this candidate's Holm level; null without se. */
  lower: number | null;
  /** The round's share of the run's error budget (alpha spending), Holm's alpha for this round. */
  alpha: number;
  /** Holm's level for this candidate's p-value in its round, and its rank among K. */
  level: number;
  rank: number;
  /** K: every candidate of the round that was trained, including those whose training failed. */
  family: number;
  /** The smallest delta that would have passed at this level: minEffect + t quantile · se. */
  threshold: number | null;
  /** The seed noise has fewer degrees of freedom than the gate needs: a person must judge. */
  notEnoughControls: boolean;
  passed: boolean;
  reason: string;
}

/** What the run's config and its error budget say a round is judged with. */
export interface RoundTestOptions {
  /** This round's alpha (roundAlpha), shared by its candidates through Holm. */
  alpha: number;
  minEffect: number;
  /** The fewest degrees of freedom of the seed-noise estimate the gate judges on. */
  minNoiseDf: number;
  /** Promotion samples per task: a branch's mean score moves in steps of 1 / (tasks × samples). */
  samplesPerTask: number;
  /** Candidates of the round whose training failed: in Holm's family with p = 1, never promoted. */
  untested?: number;
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

function testOne(candidate: ReadonlyMap<string, number>, controls: readonly ReadonlyMap<string, number>[], floor: NoiseFloor, o: RoundTestOptions, resolution: number): CandidateTest {
  const tasks = [...candidate.keys()].filter((t) => controls.every((c) => c.has(t))).sort();
  const diffs = tasks.map((t) => candidate.get(t)! - meanOfSet(controls.map((c) => c.get(t)!)));
  const n = diffs.length;
  const delta = mean(diffs);
  const seTask = n > 1 ? std(diffs, true) / Math.sqrt(n) : 0;
  const sd = seedSd(floor, resolution);
  if (controls.length === 0) return { tasks: n, delta: 0, seTask: 0, seSeed: null, se: null, df: null, t: null, p: 1, reason: "no control branch finished training this round" };
  if (n < 2) return { tasks: n, delta, seTask, seSeed: null, se: null, df: null, t: null, p: 1, reason: `only ${n} task(s) shared with the control` };
  if (sd === undefined || floor.df < o.minNoiseDf) {
    const reason = `not enough controls to judge: the seed noise has ${floor.df} degree(s) of freedom and the gate needs ${o.minNoiseDf}; a person decides this round`;
    return { tasks: n, delta, seTask, seSeed: null, se: null, df: null, t: null, p: 1, reason };
  }
  const seSeed = sd * Math.sqrt(1 + 1 / controls.length);
  const se = Math.sqrt(seSeed ** 2 + seTask ** 2);
  const partSeed = seSeed ** 4 / floor.df;
  const partTask = seTask ** 4 / (n - 1);
  const df = partSeed + partTask > 0 ? se ** 4 / (partSeed + partTask) : floor.df + n - 1;
  if (se === 0) return { tasks: n, delta, seTask, seSeed, se, df, t: null, p: delta > o.minEffect ? 0 : 1 };
  const t = (delta - o.minEffect) / se;
  return { tasks: n, delta, seTask, seSeed, se, df, t, p: studentTUpperTail(t, df) };
}

/**
 * The seed-aware gate for one round: every candidate is paired by task with the mean of the round's
 * control replicates, and its difference is tested one-sided (Δ > minEffect) against the noise a
 * different seed alone produces (the carried noise floor, plus the task-level standard error), with
 * Student's t on Welch–Satterthwaite degrees of freedom. Holm's procedure over the round's K
 * candidates, failed ones included, keeps the chance of promoting any null candidate at the round's
 * alpha, and alpha spending keeps the sum over the run's rounds at the run's alpha.
 */
export function judgeRound(
  candidates: ReadonlyMap<string, ReadonlyMap<string, number>>,
  controls: readonly ReadonlyMap<string, number>[],
  floor: NoiseFloor,
  o: RoundTestOptions,
): Map<string, ControlComparison> {
  const ids = [...candidates.keys()].sort();
  const scored = controls[0]?.size ?? 0;
  const resolution = scored > 0 ? 1 / (scored * o.samplesPerTask) : 0;
  const tests = ids.map((id) => testOne(candidates.get(id)!, controls, floor, o, resolution));
  const untested = o.untested ?? 0;
  const levels = holm([...tests.map((t) => t.p), ...Array<number>(untested).fill(1)], o.alpha);
  const sd = seedSd(floor, resolution);
  const notEnoughControls = controls.length > 0 && (sd === undefined || floor.df < o.minNoiseDf);
  return new Map(
    ids.map((id, i) => {
      const t = tests[i]!;
      const { level, rank, rejected } = levels[i]!;
      const quantile = t.se !== null && t.df !== null && level > 0 ? studentTQuantileUpper(level, t.df) : null;
      const threshold = quantile !== null ? o.minEffect + quantile * t.se! : null;
      const lower = quantile !== null ? t.delta - quantile * t.se! : null;
      const passed = t.reason === undefined && rejected && level > 0;
      const against = `p ${t.p.toPrecision(3)} against Holm level ${level.toPrecision(3)} of the round's alpha ${o.alpha.toPrecision(3)}`;
      const reason =
        t.reason ??
        (level <= 0
          ? "the run's error budget is spent: no later round may promote"
          : passed
            ? `Δ ${t.delta.toFixed(4)} exceeds the threshold ${threshold!.toFixed(4)} (lower bound ${lower!.toFixed(4)} > min effect ${o.minEffect}; ${against})`
            : `Δ ${t.delta.toFixed(4)} is not shown to exceed the min effect ${o.minEffect} beyond the seed noise: ${against}${threshold !== null ? `, threshold ${threshold.toFixed(4)}` : ""}`);
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
        minEffect: o.minEffect,
        lower,
        alpha: o.alpha,
        level,
        rank,
        family: ids.length + untested,
        threshold,
        notEnoughControls,
        passed,
        reason,
      };
      return [id, comparison];
    }),
  );
}
