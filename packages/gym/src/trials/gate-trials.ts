// Gate validity trials: null interventions (the parent's recipe again, and a factor the gym's
// trainer never reads) and known-real interventions, trained on the gym exactly as the loop trains
// a round (job document from buildJob in packages/core, job seed = run seed · 10000 + branch version, children
// from the parent's weights, R control replicates beside K = 2 candidates), judged by the real gate
// (judgeRound + verdict). Used by `evotrainer calibrate`, tests/bench/gate-validity.ts and its CI-sized test.
import {
  addControlRound,
  compileHarness,
  DEFAULT_HEALTH_RULES,
  DETECTOR_CATALOG,
  critFindings,
  judgeRound,
  NO_NOISE_FLOOR,
  pairedBootstrap,
  verdict,
  wilson,
  type Intervention,
  type NoiseFloor,
  type Recipe,
  type RunConfig,
} from "@evotrainer/core";
import { GYM_DOMAINS } from "../tasks/task.ts";
import type { Policy } from "../policy.ts";
import type { GymDomain } from "../tasks/task.ts";
import { LabelStore } from "./branch-labels.ts";
import { gateSide, type ScoredSide } from "./gate-side.ts";
import { trainGymBranch, type TrainedGymBranch } from "./gym-branch.ts";

interface Arm {
  name: string;
  factor: string;
  change: (r: Recipe) => void;
  intervention: Pick<Intervention, "targetMetric" | "expectedEffect">;
}

interface DomainSetup {
  /** What the parent is: the example run's base recipe, made non-hacking for swe. */
  base: (config: RunConfig) => void;
  nulls: Arm[];
  real: Arm[];
}

const up = (targetMetric: string): Arm["intervention"] => ({ targetMetric, expectedEffect: { direction: "up" } as Intervention["expectedEffect"] });
const down = (targetMetric: string): Arm["intervention"] => ({ targetMetric, expectedEffect: { direction: "down" } as Intervention["expectedEffect"] });

// Two kinds of null: the recipe again (another seed), and a factor the gym's trainer never reads.
const NULLS: Arm[] = [
  { name: "recipe again", factor: "none", change: () => {}, intervention: up("reward_mean") },
  { name: "no-op factor (env.networkOff)", factor: "env.networkOff", change: (r) => { r.env.networkOff = !r.env.networkOff; }, intervention: up("reward_mean") },
];

const dynamicSampling: Arm = {
  name: "dynamic sampling",
  factor: "data.dynamicSampling",
  change: (r) => { r.data.dynamicSampling = { enabled: true, maxResampleRounds: 3 }; },
  intervention: down("dead_group_ratio"),
};

const curriculum: Arm = {
  name: "curriculum (pass rate 0.1–0.9)",
  factor: "data.curriculum",
  change: (r) => { r.data.curriculum = { enabled: true, minPassRate: 0.1, maxPassRate: 0.9 }; },
  intervention: down("dead_group_ratio"),
};

// Known-real interventions: on each base they raised the locked score over the control in every
// one of 6 exploratory trials (seed 1). Tried and dropped as not real on these bases: a 3x learning
// rate (math, code, swe), an entropy bonus (swe), overlong shaping (math); the token budget fix on
// math is real but small (Δ ≈ 0.026, 4 of 6).
const DOMAINS: Record<GymDomain, DomainSetup> = {
  // The example's math base: a tight token budget, a dead-group ratio near 0.5.
  math: { base: () => {}, nulls: NULLS, real: [dynamicSampling, curriculum] },
  // The code base once its reward reads the hidden tests (the example's first fix): not hacking.
  code: {
    base: (c) => { c.recipe.reward.components = { tests_pass: { weight: 0 }, correctness: { weight: 1 }, format: { weight: 0 } }; },
    nulls: NULLS,
    real: [dynamicSampling, curriculum],
  },
  // Not hacking: tests are read-only and git history is cleared, so the naive reward is honest.
  swe: {
    base: (c) => { c.recipe.env.readOnlyTests = true; c.recipe.env.clearGitHistory = true; },
    nulls: NULLS,
    real: [dynamicSampling, curriculum],
  },
};

export interface Outcome {
  arm: string;
  real: boolean;
  scorePassed: boolean;
  promoted: boolean;
  oldGatePassed: boolean;
  /** The task bootstrap against one control: seed noise it cannot see. */
  bootstrapVsControlPassed: boolean;
  delta: number;
  threshold: number | null;
}

export interface TrialOptions {
  trials: number;
  seed: number;
  /** Training steps per branch; the config's search.stepsPerBranch when absent. */
  steps?: number;
  tasksPerStep: number;
  replicates: number;
  /** Earlier rounds whose control replicates the noise floor carries, as a run's does after round 1. */
  carried: number;
  nulls?: boolean;
  /** Called after each round of trials: rounds done of the total. */
  onRound?: (done: number, total: number) => void;
}

/** Candidates per round beside the control replicates, as the loop's rounds hold (Holm over K). */
export const TRIAL_CANDIDATES = 2;

export class NotAGymDomainError extends Error {
  constructor(domain: string) {
    super(`gate calibration trains on the built-in gym, whose domains are ${GYM_DOMAINS.join(", ")}; this config's domain is "${domain}". Calibrate with a gym config (e.g. examples/gym-math.yaml) of the same gate settings.`);
    this.name = "NotAGymDomainError";
  }
}

export const isGymDomain = (domain: string): domain is GymDomain => (GYM_DOMAINS as readonly string[]).includes(domain);

/** Null and known-real interventions on a run config's gym domain, judged by the real gate. */
export function runGateTrials(runConfig: RunConfig, o: TrialOptions) {
  const domain = runConfig.domain;
  if (!isGymDomain(domain)) throw new NotAGymDomainError(domain);
  const { trials: TRIALS, seed: SEED, tasksPerStep: TASKS_PER_STEP, replicates: REPLICATES, carried: CARRIED } = o;
  const setup = DOMAINS[domain];
  const config = structuredClone(runConfig);
  setup.base(config);
  config.seed = SEED;
  if (o.steps !== undefined) config.search.stepsPerBranch = o.steps;
  const adapter = { tasksPerStep: TASKS_PER_STEP, miniBatches: 2 };
  const compiledHarness = compileHarness({ version: 1, detectors: DETECTOR_CATALOG.filter((d) => d.domains.includes(domain)), healthRules: [...DEFAULT_HEALTH_RULES], gate: config.gate });
  if (!compiledHarness.ok) throw new Error(`the ${domain} catalog harness does not compile: ${compiledHarness.rejections.map((r) => r.message).join("; ")}`);
  const harness = compiledHarness.harness;
  const labels = new LabelStore(domain);
  const side = (b: TrainedGymBranch, id: string, recipe: Recipe): ScoredSide =>
    gateSide({ id, train: b.train, promotion: b.promotion, maxResponseTokens: recipe.algo.maxResponseTokens }, harness, labels);
  const runId = `bench-${domain}-${SEED}`;
  let version = 0;
  const train = (recipe: Recipe, start?: Policy) => {
    const v = version++;
    const id = `${runId}-v${v}`;
    const trained = trainGymBranch({ config, runId, branchId: id, version: v, recipe, ...(start ? { start } : {}), adapter });
    return { trained, side: side(trained, id, recipe) };
  };
  const withChange = (change: (r: Recipe) => void) => {
    const r = structuredClone(config.recipe);
    change(r);
    return r;
  };

  // The parent: the base branch of the run, trained once.
  const parent = train(config.recipe);
  const kinds: { arms: Arm[]; real: boolean }[] = [...(o.nulls === false ? [] : [{ arms: setup.nulls, real: false }]), ...setup.real.map((a) => ({ arms: [a, setup.nulls[0]!], real: true }))];
  const outcomes: Outcome[] = [];
  const controlRounds: number[][] = [];
  const started = Date.now();
  const totalRounds = kinds.length * TRIALS;
  for (const { arms, real } of kinds) {
    for (let t = 0; t < TRIALS; t++) {
      // One round: K candidates and R control replicates, all from the parent's weights.
      const controls = Array.from({ length: REPLICATES }, () => train(config.recipe, parent.trained.policy));
      const candidates = arms.map((a) => train(withChange(a.change), parent.trained.policy));
      const scores = controls.map((c) => c.side.score);
      // The floor carries the control replicates of the previous CARRIED rounds, as a run's would.
      let floor: NoiseFloor = addControlRound(NO_NOISE_FLOOR, scores);
      for (const earlier of controlRounds.slice(-CARRIED)) floor = addControlRound(floor, earlier);
      controlRounds.push(scores);
      const round = judgeRound(new Map(candidates.map((c, i) => [`k${i}`, c.side.taskScores])), controls.map((c) => c.side.taskScores), floor, 1 - config.gate.confidence);
      // As the worker judges: a CRIT finding the controls show too is not the candidate's.
      const controlCrit = [...new Set(controls.flatMap((c) => critFindings(c.side.report)))].sort();
      candidates.forEach((c, i) => {
        const arm = arms[i]!;
        const vsControl = round.get(`k${i}`)!;
        const v = verdict({ candidate: c.side, parent: parent.side, intervention: arm.intervention, policy: config.gate, seed: SEED + t, vsControl, controlCrit });
        const old = pairedBootstrap(c.side.taskScores, parent.side.taskScores, { seed: SEED + t, resamples: config.gate.resamples, confidence: config.gate.confidence });
        const sibling = pairedBootstrap(c.side.taskScores, controls[0]!.side.taskScores, { seed: SEED + t, resamples: config.gate.resamples, confidence: config.gate.confidence });
        outcomes.push({
          arm: arm.name,
          real: real && i === 0,
          scorePassed: vsControl.passed,
          promoted: v.promote,
          oldGatePassed: old.ci[0] > 0,
          bootstrapVsControlPassed: sibling.ci[0] > 0,
          delta: vsControl.delta,
          threshold: vsControl.threshold,
        });
      });
      o.onRound?.(controlRounds.length, totalRounds);
    }
  }
  const summary = [...new Set(outcomes.map((o) => `${o.real ? "real" : "null"}|${o.arm}`))].map((key) => {
    const [kind, arm] = key.split("|") as ["real" | "null", string];
    const rows = outcomes.filter((o) => o.arm === arm && (kind === "real") === o.real);
    const k = rows.filter((o) => o.scorePassed).length;
    const meanDelta = rows.reduce((a, o) => a + o.delta, 0) / rows.length;
    return {
      kind,
      arm,
      n: rows.length,
      scorePassed: k,
      rate: k / rows.length,
      interval: wilson(k, rows.length),
      promotedFullVerdict: rows.filter((o) => o.promoted).length,
      oldGateVsParent: rows.filter((o) => o.oldGatePassed).length,
      bootstrapVsControl: rows.filter((o) => o.bootstrapVsControlPassed).length,
      meanDelta,
    };
  });
  const nulls = outcomes.filter((o) => !o.real);
  const falsePromotions = nulls.filter((o) => o.scorePassed).length;
  return {
    domain,
    // Rounded: 1 − 0.95 in floating point is 0.050000000000000044.
    gate: { alpha: Number((1 - config.gate.confidence).toFixed(6)), replicates: REPLICATES, candidates: TRIAL_CANDIDATES, carried: CARRIED, steps: config.search.stepsPerBranch, tasksPerStep: TASKS_PER_STEP },
    parentScore: parent.side.score,
    seconds: (Date.now() - started) / 1000,
    falsePromotion: { k: falsePromotions, n: nulls.length, rate: falsePromotions / nulls.length, interval: wilson(falsePromotions, nulls.length) },
    summary,
  };
}

