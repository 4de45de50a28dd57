// The gate's validity benchmark (issue 30): independent null runs of each shipped gym example, as
// the worker runs them (packages/gym/src/trials/gate-trials.ts: the run's own recipe and trainer
// settings, its search.keep candidates and per-parent control replicates, alpha spent over its
// rounds), and first rounds with a known-real intervention. Prints the per-run false-promotion rate
// with its 95% Wilson interval (runs are the independent unit) and the power. Reproducible per seed.
// With --sweep, the config space instead (tests/bench/gate-variants.ts): per variant, the per-run
// false-promotion rate with its Wilson interval and the share of rounds sent to a person, with why.
// Run: npm run bench:gate -- [--runs 200] [--power-runs 50] [--seed 1] [--domains math,code,swe] [--json out.json]
//      npm run bench:gate -- --sweep [--runs 100] [--variants "code, validityLimits {};math as shipped"] [--json out.json]
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { runGateTrials, type GymDomain } from "@evotrainer/gym";
import { loadRunConfig } from "../loop/run-config.ts";
import { runSweep } from "./gate-sweep.ts";

const { values } = parseArgs({
  options: {
    runs: { type: "string", default: "200" },
    "power-runs": { type: "string", default: "50" },
    seed: { type: "string", default: "1" },
    domains: { type: "string", default: "math,code,swe" },
    json: { type: "string" },
    sweep: { type: "boolean", default: false },
    variants: { type: "string" },
  },
});
const RUNS = Number(values.runs);
const POWER_RUNS = Number(values["power-runs"]);
const SEED = Number(values.seed);

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

if (values.sweep) {
  const rows = runSweep({ runs: Number(values.runs), seed: SEED, ...(values.variants ? { only: values.variants.split(";").map((v) => v.trim()) } : {}) });
  if (values.json) writeFileSync(values.json, JSON.stringify({ runs: RUNS, seed: SEED, rows }, null, 2));
  process.exit(0);
}

const results = [];
console.log(`gate validity: ${RUNS} null runs and ${POWER_RUNS} first rounds per real intervention per domain, seed ${SEED}, each example config as shipped`);
for (const domain of values.domains.split(",") as GymDomain[]) {
  const r = runGateTrials(loadRunConfig(`examples/gym-${domain}.yaml`), {
    runs: RUNS,
    powerRuns: POWER_RUNS,
    seed: SEED,
    onRun: (done, total, nulls) => {
      if (done % 10 === 0 || done === total) process.stderr.write(`  ${domain}: ${done}/${total} runs; null runs with a false promotion so far ${nulls.falseRuns}/${nulls.runs}\n`);
    },
  });
  results.push(r);
  const g = r.gate;
  console.log(`\n${domain} (${r.seconds.toFixed(0)} s): ${g.rounds} rounds, K = ${g.candidates}, controls ${g.newParentReplicates} then ${g.replicates} per round, alpha ${g.alpha} per run, min effect ${g.minEffect}, min noise df ${g.minNoiseDf}, ${g.steps} steps`);
  if (r.base) console.log(`  base: score ${r.base.score.toFixed(4)}${r.base.hacks ? `; THE BASE HACKS (${r.base.failed.join("; ")}), measured anyway` : ""}`);
  const [lo, hi] = r.falsePromotion.interval;
  console.log(`  per-run false promotion: ${r.falsePromotion.k}/${r.falsePromotion.n} runs = ${pct(r.falsePromotion.rate)} (95% Wilson ${pct(lo)}–${pct(hi)})`);
  console.log(`  runs where a null passed the score test alone: ${r.scoreTestRuns.k}/${r.scoreTestRuns.n}; rounds sent to a person (not enough controls): ${r.toPerson}`);
  for (const p of r.power) {
    console.log(
      `  power ${p.arm.padEnd(32)} promoted ${p.promoted}/${p.n} = ${pct(p.rate)} [${pct(p.interval[0])}, ${pct(p.interval[1])}]; score test passed ${p.scorePassed}/${p.n}, mean Δ vs control ${p.meanDelta.toFixed(4)}` +
        (p.blockedBy.length ? `; blocked by ${p.blockedBy.join(", ")}` : ""),
    );
  }
}
if (values.json) writeFileSync(values.json, JSON.stringify({ runs: RUNS, powerRuns: POWER_RUNS, seed: SEED, results }, null, 2));
