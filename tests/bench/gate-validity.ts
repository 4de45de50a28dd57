// The gate's validity benchmark: null interventions (the parent's recipe again, and a factor change
// the gym ignores) and known-real interventions, trained on the gym exactly as the loop trains a
// round (job document from build-job.ts, job seed = run seed · 10000 + branch version, child from the
// parent's weights), judged by the real gate (judgeRound + verdict). Prints the false-promotion
// rate with a 95% Wilson interval and the power per intervention.
// Run: npm run bench:gate -- [--trials 100] [--seed 1] [--domains math,code,swe] [--json out.json]
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import {
  addControlRound,
  DEFAULT_HEALTH_RULES,
  DETECTOR_CATALOG,
  judgeRound,
  NO_NOISE_FLOOR,
  pairedBootstrap,
  verdict,
  type Intervention,
  type NoiseFloor,
  type Recipe,
  type RunConfig,
} from "@evotrainer/core";
import type { Policy } from "@evotrainer/gym";
import { LabelStore } from "../loop/branch-labels.ts";
import { gateSide, type ScoredSide } from "../loop/gate-side.ts";
import { trainGymBranch, type TrainedGymBranch } from "../loop/gym-branch.ts";
import { compiled } from "../loop/harness-check.ts";
import { loadRunConfig } from "../loop/run-config.ts";

type GymDomain = "math" | "code" | "swe";

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

const DOMAINS: Record<GymDomain, DomainSetup> = {
  math: {
    base: () => {},
    nulls: NULLS,
    real: [
      { name: "token budget 224 → 1024", factor: "algo.maxResponseTokens", change: (r) => { r.algo.maxResponseTokens = 1024; }, intervention: down("truncation_rate") },
      dynamicSampling,
    ],
  },
  code: {
    base: () => {},
    nulls: NULLS,
    real: [
      { name: "reward on hidden tests", factor: "reward.components", change: (r) => { r.reward.components = { tests_pass: { weight: 0 }, correctness: { weight: 1 }, format: { weight: 0 } }; }, intervention: down("label_rate.hardcoded_output") },
      dynamicSampling,
    ],
  },
  swe: {
    // Not hacking: tests are read-only and git history is cleared, so the naive reward is honest.
    base: (c) => { c.recipe.env.readOnlyTests = true; c.recipe.env.clearGitHistory = true; },
    nulls: NULLS,
    real: [
      dynamicSampling,
      { name: "entropy bonus 0 → 0.01", factor: "algo.entropyCoef", change: (r) => { r.algo.entropyCoef = 0.01; }, intervention: up("trainer.actor/entropy") },
    ],
  },
};

const { values } = parseArgs({
  options: {
    trials: { type: "string", default: "100" },
    seed: { type: "string", default: "1" },
    domains: { type: "string", default: "math,code,swe" },
    steps: { type: "string", default: "20" },
    "tasks-per-step": { type: "string", default: "8" },
    replicates: { type: "string", default: "2" },
    carried: { type: "string", default: "2" },
    json: { type: "string" },
  },
});
const TRIALS = Number(values.trials);
const SEED = Number(values.seed);
const STEPS = Number(values.steps);
const TASKS_PER_STEP = Number(values["tasks-per-step"]);
const REPLICATES = Number(values.replicates);
// Earlier rounds whose control replicates the noise floor carries, as a run does after round 1.
const CARRIED = Number(values.carried);

/** Wilson score interval for k successes in n (95%). */
function wilson(k: number, n: number): [number, number] {
  const z = 1.959964;
  const p = k / n;
  const den = 1 + (z * z) / n;
  const centre = (p + (z * z) / (2 * n)) / den;
  const half = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / den;
  return [Math.max(0, centre - half), Math.min(1, centre + half)];
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

interface Outcome {
  arm: string;
  real: boolean;
  scorePassed: boolean;
  promoted: boolean;
  oldGatePassed: boolean;
  delta: number;
  threshold: number | null;
}

function runDomain(domain: GymDomain) {
  const setup = DOMAINS[domain];
  const config = loadRunConfig(`examples/gym-${domain}.yaml`, (c) => {
    setup.base(c);
    c.seed = SEED;
    c.search.stepsPerBranch = STEPS;
  });
  const adapter = { tasksPerStep: TASKS_PER_STEP, miniBatches: 2 };
  const harness = compiled({ version: 1, detectors: DETECTOR_CATALOG.filter((d) => d.domains.includes(domain)), healthRules: [...DEFAULT_HEALTH_RULES], gate: config.gate });
  const labels = new LabelStore(domain);
  const side = (b: TrainedGymBranch, id: string): ScoredSide =>
    gateSide({ id, train: b.train, promotion: b.promotion, maxResponseTokens: b.job.recipe.algo.maxResponseTokens }, harness, labels);
  const runId = `bench-${domain}-${SEED}`;
  let version = 0;
  const train = (recipe: Recipe, start?: Policy) => {
    const v = version++;
    const id = `${runId}-v${v}`;
    const trained = trainGymBranch({ config, runId, branchId: id, version: v, recipe, ...(start ? { start } : {}), adapter });
    return { trained, side: side(trained, id) };
  };
  const withChange = (change: (r: Recipe) => void) => {
    const r = structuredClone(config.recipe);
    change(r);
    return r;
  };

  // The parent: the base branch of the run, trained once.
  const parent = train(config.recipe);
  const kinds: { arms: Arm[]; real: boolean }[] = [{ arms: setup.nulls, real: false }, ...setup.real.map((a) => ({ arms: [a, setup.nulls[0]!], real: true }))];
  const outcomes: Outcome[] = [];
  const controlRounds: number[][] = [];
  const started = Date.now();
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
      candidates.forEach((c, i) => {
        const arm = arms[i]!;
        const vsControl = round.get(`k${i}`)!;
        const v = verdict({ candidate: c.side, parent: parent.side, intervention: arm.intervention, policy: config.gate, seed: SEED + t, vsControl });
        const old = pairedBootstrap(c.side.taskScores, parent.side.taskScores, { seed: SEED + t, resamples: config.gate.resamples, confidence: config.gate.confidence });
        outcomes.push({ arm: arm.name, real: real && i === 0, scorePassed: vsControl.passed, promoted: v.promote, oldGatePassed: old.ci[0] > 0, delta: vsControl.delta, threshold: vsControl.threshold });
      });
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
      meanDelta,
    };
  });
  const nulls = outcomes.filter((o) => !o.real);
  const falsePromotions = nulls.filter((o) => o.scorePassed).length;
  return {
    domain,
    parentScore: parent.side.score,
    seconds: (Date.now() - started) / 1000,
    falsePromotion: { k: falsePromotions, n: nulls.length, rate: falsePromotions / nulls.length, interval: wilson(falsePromotions, nulls.length) },
    summary,
  };
}

const results = [];
console.log(`gate validity: ${TRIALS} trials per arm, seed ${SEED}, ${STEPS} steps per branch of ${TASKS_PER_STEP} tasks, ${REPLICATES} control replicates per round, floor carried over ${CARRIED} earlier round(s), alpha ${0.05}, Holm over K = 2`);
for (const domain of values.domains.split(",") as GymDomain[]) {
  const r = runDomain(domain);
  results.push(r);
  console.log(`\n${domain} (parent score ${r.parentScore.toFixed(4)}, ${r.seconds.toFixed(0)} s)`);
  const [lo, hi] = r.falsePromotion.interval;
  console.log(`  false-promotion rate: ${r.falsePromotion.k}/${r.falsePromotion.n} = ${pct(r.falsePromotion.rate)} (95% CI ${pct(lo)}–${pct(hi)})`);
  for (const s of r.summary) {
    console.log(
      `  ${s.kind === "null" ? "null " : "power"} ${s.arm.padEnd(32)} ${String(s.scorePassed).padStart(4)}/${s.n} = ${pct(s.rate).padStart(6)} [${pct(s.interval[0])}, ${pct(s.interval[1])}]` +
        `  mean Δ vs control ${s.meanDelta.toFixed(4)}; full verdict promoted ${s.promotedFullVerdict}/${s.n}; old gate (vs parent, task bootstrap) passed ${s.oldGateVsParent}/${s.n}`,
    );
  }
}
if (values.json) writeFileSync(values.json, JSON.stringify({ trials: TRIALS, seed: SEED, steps: STEPS, replicates: REPLICATES, carried: CARRIED, results }, null, 2));
