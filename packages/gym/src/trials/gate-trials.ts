// Gate validity trials: whole runs of null interventions (the parent's recipe again, and a factor the
// gym's trainer never reads), and first rounds with a known-real intervention, trained on the gym as
// the worker trains a run: the job document from buildJob with the run's own trainer settings, job
// seed from the run seed and branch version, versions numbered as propose.ts numbers them, children
// from the parent's weights, search.keep candidates and the control replicates propose.ts creates
// (per parent), judged by the real gate (judgeRound with roundTestOptions, verdict) with the run's
// alpha spent over its rounds as the worker reads it back (spentByRounds). Used by `evotrainer
// calibrate`, tests/bench/gate-validity.ts and its CI-sized test.
import {
  addControlRound,
  baselineChecks,
  compileHarness,
  critFindings,
  DEFAULT_HEALTH_RULES,
  DETECTOR_CATALOG,
  judgeRound,
  NO_NOISE_FLOOR,
  roundTestOptions,
  runAlpha,
  spentByRounds,
  verdict,
  wilson,
  type Intervention,
  type Label,
  type NoiseFloor,
  type Recipe,
  type RunConfig,
  type Verdict,
  validityLabelsOf,
} from "@evotrainer/core";
import { GYM_DOMAINS, type GymDomain } from "../tasks/task.ts";
import type { Policy } from "../policy.ts";
import { LabelStore, type BranchLabels, type LabelledBranch } from "./branch-labels.ts";
import { gateSide, type ScoredSide } from "./gate-side.ts";
import { trainGymBranch } from "./gym-branch.ts";

interface Arm {
  name: string;
  change: (r: Recipe) => void;
  intervention: Pick<Intervention, "targetMetric" | "expectedEffect">;
}

const up = (targetMetric: string): Arm["intervention"] => ({ targetMetric, expectedEffect: { direction: "up" } as Intervention["expectedEffect"] });
const down = (targetMetric: string): Arm["intervention"] => ({ targetMetric, expectedEffect: { direction: "down" } as Intervention["expectedEffect"] });

// Two kinds of null: the recipe again (another seed), and a factor the gym's trainer never reads.
// Each predicts the score up: the targeted-metric check is then no extra hurdle for a null.
const NULLS: Arm[] = [
  { name: "recipe again", change: () => {}, intervention: up("reward_mean") },
  { name: "no-op factor (env.networkOff)", change: (r) => { r.env.networkOff = !r.env.networkOff; }, intervention: up("reward_mean") },
];

// Known-real interventions: on each domain's non-hacking base they raise the locked score over the
// control (exploratory trials, issue 12). On a hacking base they inherit the hack and its validity labels.
export const REAL_ARMS: Arm[] = [
  { name: "dynamic sampling", change: (r) => { r.data.dynamicSampling = { enabled: true, maxResampleRounds: 3 }; }, intervention: down("dead_group_ratio") },
  { name: "curriculum (pass rate 0.1–0.9)", change: (r) => { r.data.curriculum = { enabled: true, minPassRate: 0.1, maxPassRate: 0.9 }; }, intervention: down("dead_group_ratio") },
];

export interface TrialOptions {
  /** Independent null runs (each its own run seed). */
  runs: number;
  /** Independent first rounds per known-real intervention. */
  powerRuns: number;
  seed: number;
  /** Rounds per null run: the config's budget.rounds when absent (at least 3 for the benchmark's claims). */
  rounds?: number;
  /** A test-sized override of the job's adapter knobs; absent, the run's trainer settings as the worker sends them. */
  adapter?: Record<string, unknown>;
  /** Training steps per branch; the config's search.stepsPerBranch when absent. */
  steps?: number;
  /** Called after each run: runs done of the total, and the null runs' false promotions so far. */
  onRun?: (done: number, total: number, nulls: { falseRuns: number; runs: number }) => void;
}

export class NotAGymDomainError extends Error {
  constructor(domain: string) {
    super(`gate calibration trains on the built-in gym, whose domains are ${GYM_DOMAINS.join(", ")}; this config's domain is "${domain}". Calibrate with a gym config (e.g. examples/gym-math.yaml) of the same gate settings.`);
    this.name = "NotAGymDomainError";
  }
}

export const isGymDomain = (domain: string): domain is GymDomain => (GYM_DOMAINS as readonly string[]).includes(domain);

/** One null run: did any round promote a null candidate, and where the gate stood. */
export interface NullRun {
  seed: number;
  /** The round whose verdict promoted a null candidate (the run is counted false from there); null if none. */
  falsePromotionRound: number | null;
  /** A null candidate passed the score test against the control (whatever the other checks said). */
  scoreTestPassed: boolean;
  /** Rounds sent to a person: not enough controls to judge, or a validity label present but not limited. */
  toPerson: number;
  /** Why the gate sent them (its own words); null when none went. */
  toPersonReason: string | null;
  /** Rounds the gate judged itself: only these can promote, so only these measure the gate. */
  judged: number;
  /** The run's alpha its rounds spent. */
  spent: number;
  /** Noise df per round (of the round's parent), as judged. */
  noiseDf: number[];
}

export interface PowerRun {
  arm: string;
  seed: number;
  scorePassed: boolean;
  promoted: boolean;
  delta: number;
  /** The checks that kept a passing score from promotion (a validity limit on a hacking base). */
  blockedBy: string[];
  /** The round went to a person (not enough controls): not promoted, but not judged either. */
  toPerson: boolean;
}

/** Rollouts of one branch that a validity detector flagged with one label. */
export interface ValidityCount {
  label: string;
  train: number;
  promotion: number;
}

/** What the base branch of the config's own recipe looks like: whether its rollouts hack. */
export interface BaseState {
  score: number;
  /** Some of its rollouts carry a validity label: read from the rollouts, not from gate.validityLimits, which may name none. */
  hacks: boolean;
  /** Per validity label, the base's flagged rollouts, of `rollouts` each way. */
  validity: ValidityCount[];
  rollouts: { train: number; promotion: number };
  /** The baseline checks that failed: validity labels over their limits, CRIT findings. */
  failed: string[];
}

type Side = ScoredSide & { policy: Policy; branch: LabelledBranch };

/** Per validity label, how many of a branch's rollouts carry it, training and promotion apart. */
export function validityCounts(labels: BranchLabels): ValidityCount[] {
  const flagged = (list: readonly Label[], label: string) => new Set(list.filter((l) => l.validity && l.label === label).map((l) => l.rolloutUid)).size;
  const names = [...new Set([...labels.train, ...labels.promotion].filter((l) => l.validity).map((l) => l.label))].sort();
  return names.map((label) => ({ label, train: flagged(labels.train, label), promotion: flagged(labels.promotion, label) }));
}

/** A run config's gym domain, trained and judged as a run of the worker would be. */
export function runGateTrials(runConfig: RunConfig, o: TrialOptions) {
  const domain = runConfig.domain;
  if (!isGymDomain(domain)) throw new NotAGymDomainError(domain);
  const compiledHarness = compileHarness({ version: 1, detectors: DETECTOR_CATALOG.filter((d) => d.domains.includes(domain)), healthRules: [...DEFAULT_HEALTH_RULES], gate: runConfig.gate });
  if (!compiledHarness.ok) throw new Error(`the ${domain} catalog harness does not compile: ${compiledHarness.rejections.map((r) => r.message).join("; ")}`);
  const harness = compiledHarness.harness;
  const validityLabels = validityLabelsOf(harness);
  const labels = new LabelStore(domain);
  const rounds = o.rounds ?? runConfig.budget.rounds;
  const sibling = runConfig.search.control === "sibling";
  const started = Date.now();

  /** A run of this config under its own seed: trains branches as the worker's jobs would. */
  const startRun = (runSeed: number) => {
    const config = structuredClone(runConfig);
    config.seed = runSeed;
    config.budget.rounds = rounds;
    if (o.steps !== undefined) config.search.stepsPerBranch = o.steps;
    const runId = `calibrate-${domain}-${runSeed}`;
    let version = -1;
    const train = (recipe: Recipe, start?: Policy): Side => {
      const v = ++version;
      const id = `${runId}-v${v}`;
      const trained = trainGymBranch({ config, runId, branchId: id, version: v, recipe, ...(start ? { start } : {}), ...(o.adapter ? { adapter: o.adapter } : {}) });
      const branch: LabelledBranch = { id, train: trained.train, promotion: trained.promotion, maxResponseTokens: recipe.algo.maxResponseTokens };
      return { ...gateSide(branch, harness, labels), policy: trained.policy, branch };
    };
    const withChange = (change: (r: Recipe) => void) => {
      const r = structuredClone(config.recipe);
      change(r);
      return r;
    };
    return { config, train, withChange, base: train(config.recipe) };
  };

  /** One round from `parent`: candidates first, then the controls, as propose.ts creates them. */
  const judgeOne = (
    run: ReturnType<typeof startRun>,
    parent: Side,
    arms: readonly Arm[],
    state: { round: number; controlRounds: number[][]; verdicts: { round: number; checks: Verdict["checks"] }[] },
  ) => {
    const { config, train, withChange } = run;
    const candidates = arms.map((a) => train(withChange(a.change), parent.policy));
    const replicates = !sibling ? 0 : state.controlRounds.length > 0 ? config.search.controlReplicates : config.search.newParentControlReplicates;
    const controls = Array.from({ length: replicates }, () => train(config.recipe, parent.policy));
    if (controls.length > 0) state.controlRounds.push(controls.map((c) => c.score));
    const floor: NoiseFloor = state.controlRounds.reduce(addControlRound, NO_NOISE_FLOOR);
    const spentBefore = spentByRounds(state.verdicts);
    const options = roundTestOptions(config, { round: state.round, spentBefore, untested: 0 });
    const judged = sibling ? judgeRound(new Map(candidates.map((c, i) => [`k${i}`, c.taskScores])), controls.map((c) => c.taskScores), floor, options) : null;
    const controlCrit = [...new Set(controls.flatMap((c) => critFindings(c.report)))].sort();
    const controlMetrics = controls.map((c) => c.report.metrics);
    return candidates.map((c, i) => {
      const vsControl = judged?.get(`k${i}`) ?? null;
      const v = verdict({ candidate: c, parent, intervention: arms[i]!.intervention, policy: config.gate, seed: config.seed + i, vsControl, validityLabels, ...(sibling ? { controlCrit, controlMetrics } : {}) });
      state.verdicts.push({ round: state.round, checks: v.checks });
      // Why the worker would hand this verdict to a person, who is outside this measurement.
      const personReasons = [...(vsControl?.notEnoughControls ? [vsControl.reason] : []), ...(v.needsPerson ?? [])];
      const promoted = v.promote && personReasons.length === 0;
      return { side: c, verdict: v, vsControl, promoted, personReasons };
    });
  };

  // What the config's own base is, from the first run's base branch: a hacking base is measured anyway.
  // Whether it hacks is what the gym's detectors flagged in its rollouts (cached labels): a config
  // whose gate.validityLimits name no label, or another one, would otherwise call a hacking base clean.
  let base: BaseState | null = null;
  const describeBase = (side: Side) => {
    if (base) return;
    const failed = baselineChecks(side.report, runConfig.gate).filter((c) => !c.passed);
    const validity = validityCounts(labels.of(side.branch, harness));
    base = {
      score: side.score,
      hacks: validity.length > 0,
      validity,
      rollouts: { train: side.branch.train.length, promotion: side.branch.promotion.length },
      failed: failed.map((c) => `${c.name}: ${c.detail}`),
    };
  };

  const nullArms = Array.from({ length: runConfig.search.keep }, (_, i) => NULLS[i % NULLS.length]!);
  const total = o.runs + REAL_ARMS.length * o.powerRuns;
  let done = 0;
  const nullRuns: NullRun[] = [];
  for (let r = 0; r < o.runs; r++) {
    const runSeed = o.seed * 100_000 + 1 + r;
    const run = startRun(runSeed);
    describeBase(run.base);
    // The parent stays the base while nothing is promoted; per-parent noise carries over its rounds.
    const state = { round: 0, controlRounds: [] as number[][], verdicts: [] as { round: number; checks: Verdict["checks"] }[] };
    const outcome: NullRun = { seed: runSeed, falsePromotionRound: null, scoreTestPassed: false, toPerson: 0, toPersonReason: null, judged: 0, spent: 0, noiseDf: [] };
    for (let round = 1; round <= rounds; round++) {
      state.round = round;
      const judged = judgeOne(run, run.base, nullArms, state);
      outcome.noiseDf.push(judged[0]?.vsControl?.noiseDf ?? 0);
      const toPerson = judged.find((j) => j.personReasons.length > 0);
      if (toPerson) {
        outcome.toPerson++;
        outcome.toPersonReason ??= toPerson.personReasons[0]!;
      } else outcome.judged++;
      if (judged.some((j) => j.vsControl?.passed)) outcome.scoreTestPassed = true;
      // A false promotion ends the run's count: from here on its parent would be a null's child.
      if (judged.some((j) => j.promoted)) {
        outcome.falsePromotionRound = round;
        break;
      }
    }
    outcome.spent = spentByRounds(state.verdicts);
    nullRuns.push(outcome);
    o.onRun?.(++done, total, { falseRuns: nullRuns.filter((n) => n.falsePromotionRound !== null).length, runs: nullRuns.length });
  }

  const powerRuns: PowerRun[] = [];
  for (const [a, arm] of REAL_ARMS.entries()) {
    for (let r = 0; r < o.powerRuns; r++) {
      const runSeed = o.seed * 100_000 + 50_000 + a * 10_000 + r;
      const run = startRun(runSeed);
      describeBase(run.base);
      // A run's first round: the real intervention beside keep − 1 nulls, at round 1's share of alpha.
      const arms = [arm, ...nullArms.slice(1)];
      const [real] = judgeOne(run, run.base, arms, { round: 1, controlRounds: [], verdicts: [] });
      const blockedBy = real!.verdict.checks.filter((c) => !c.passed && c.blocking !== false && c.name !== "main_score_vs_control").map((c) => c.name);
      powerRuns.push({ arm: arm.name, seed: runSeed, scorePassed: real!.vsControl?.passed ?? false, promoted: real!.promoted, delta: real!.vsControl?.delta ?? 0, blockedBy, toPerson: real!.personReasons.length > 0 });
      o.onRun?.(++done, total, { falseRuns: nullRuns.filter((n) => n.falsePromotionRound !== null).length, runs: nullRuns.length });
    }
  }

  const falseRuns = nullRuns.filter((r) => r.falsePromotionRound !== null).length;
  const scoreRuns = nullRuns.filter((r) => r.scoreTestPassed).length;
  // No power runs measured no power: no rows, rather than each arm's 0 of 0 read as a rate of 0.
  const power = o.powerRuns === 0 ? [] : REAL_ARMS.map((arm) => {
    const rows = powerRuns.filter((p) => p.arm === arm.name);
    const promoted = rows.filter((p) => p.promoted).length;
    const scorePassed = rows.filter((p) => p.scorePassed).length;
    const blocked = [...new Set(rows.flatMap((p) => p.blockedBy))].sort();
    const toPerson = rows.filter((p) => p.toPerson).length;
    return { arm: arm.name, n: rows.length, promoted, rate: promoted / rows.length, interval: wilson(promoted, rows.length), scorePassed, meanDelta: rows.reduce((s, p) => s + p.delta, 0) / rows.length, blockedBy: blocked, toPerson };
  });
  return {
    domain,
    control: runConfig.search.control,
    gate: {
      alpha: runAlpha(runConfig),
      rounds,
      candidates: runConfig.search.keep,
      replicates: runConfig.search.controlReplicates,
      newParentReplicates: runConfig.search.newParentControlReplicates,
      minEffect: runConfig.gate.minEffect,
      minNoiseDf: runConfig.gate.minNoiseDf,
      steps: o.steps ?? runConfig.search.stepsPerBranch,
    },
    base: base as BaseState | null,
    seconds: (Date.now() - started) / 1000,
    /** Per run: the unit the guarantee is stated for, so the interval counts runs. */
    falsePromotion: { k: falseRuns, n: nullRuns.length, rate: nullRuns.length ? falseRuns / nullRuns.length : 0, interval: wilson(falseRuns, nullRuns.length) },
    scoreTestRuns: { k: scoreRuns, n: nullRuns.length },
    toPerson: nullRuns.reduce((s, r) => s + r.toPerson, 0),
    /** Null rounds the gate judged itself: with none, the false-promotion rate measured nothing. */
    judgedRounds: nullRuns.reduce((s, r) => s + r.judged, 0),
    /** Why rounds went to a person, each once. */
    toPersonReasons: [...new Set(nullRuns.flatMap((r) => (r.toPersonReason === null ? [] : [r.toPersonReason])))].sort(),
    nullRuns,
    power,
  };
}

export type GateTrialsResult = ReturnType<typeof runGateTrials>;
