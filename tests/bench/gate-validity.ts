// The gate's validity benchmark (issue 12): prints the false-promotion rate of null interventions
// with a 95% Wilson interval and the power on known-real interventions, per gym domain, through the
// real gate on real gym training (packages/gym/src/trials/gate-trials.ts). Reproducible per seed.
// Run: npm run bench:gate -- [--trials 100] [--seed 1] [--domains math,code,swe] [--json out.json]
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { runGateTrials, type GymDomain } from "@evotrainer/gym";
import { loadRunConfig } from "../loop/run-config.ts";

const { values } = parseArgs({
  options: {
    trials: { type: "string", default: "100" },
    seed: { type: "string", default: "1" },
    domains: { type: "string", default: "math,code,swe" },
    steps: { type: "string", default: "30" },
    "tasks-per-step": { type: "string", default: "16" },
    replicates: { type: "string", default: "2" },
    carried: { type: "string", default: "2" },
    json: { type: "string" },
    "skip-nulls": { type: "boolean", default: false },
  },
});
const TRIALS = Number(values.trials);
const SEED = Number(values.seed);
const STEPS = Number(values.steps);
const TASKS_PER_STEP = Number(values["tasks-per-step"]);
const REPLICATES = Number(values.replicates);
const CARRIED = Number(values.carried);
const options = { trials: TRIALS, seed: SEED, steps: STEPS, tasksPerStep: TASKS_PER_STEP, replicates: REPLICATES, carried: CARRIED, nulls: !values["skip-nulls"] };

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

const results = [];
console.log(`gate validity: ${TRIALS} trials per arm, seed ${SEED}, ${STEPS} steps per branch of ${TASKS_PER_STEP} tasks, ${REPLICATES} control replicates per round, floor carried over ${CARRIED} earlier round(s), alpha ${0.05}, Holm over K = 2`);
for (const domain of values.domains.split(",") as GymDomain[]) {
  const r = runGateTrials(loadRunConfig(`examples/gym-${domain}.yaml`), options);
  results.push(r);
  console.log(`\n${domain} (parent score ${r.parentScore.toFixed(4)}, ${r.seconds.toFixed(0)} s)`);
  const [lo, hi] = r.falsePromotion.interval;
  console.log(`  false-promotion rate: ${r.falsePromotion.k}/${r.falsePromotion.n} = ${pct(r.falsePromotion.rate)} (95% CI ${pct(lo)}–${pct(hi)})`);
  for (const s of r.summary) {
    console.log(
      `  ${s.kind === "null" ? "null " : "power"} ${s.arm.padEnd(32)} ${String(s.scorePassed).padStart(4)}/${s.n} = ${pct(s.rate).padStart(6)} [${pct(s.interval[0])}, ${pct(s.interval[1])}]` +
        `  mean Δ vs control ${s.meanDelta.toFixed(4)}; full verdict promoted ${s.promotedFullVerdict}/${s.n}; old gate (task bootstrap vs parent) passed ${s.oldGateVsParent}/${s.n}, task bootstrap vs one control ${s.bootstrapVsControl}/${s.n}`,
    );
  }
}
if (values.json) writeFileSync(values.json, JSON.stringify({ trials: TRIALS, seed: SEED, steps: STEPS, replicates: REPLICATES, carried: CARRIED, results }, null, 2));
