// The CI-sized version of the gate validity benchmark (npm run bench:gate: 200 null runs per
// domain): a sequential test on whole null runs of the shipped gym examples, trained and judged as
// the worker runs them (test-sized batches: 8 prompts per step, 20 steps, 3 rounds), and a
// first-round power check on math, whose base does not hack.
import { describe, expect, it } from "vitest";
import { runGateTrials, type GymDomain } from "@evotrainer/gym";
import { loadRunConfig } from "./run-config.ts";

const DOMAINS: GymDomain[] = ["math", "code", "swe"];
const SIZE = { adapter: { tasksPerStep: 8 }, steps: 20, rounds: 3 };

// The sequential test: at most MAX_RUNS null runs, taken in turn from the three domains; it fails
// as soon as FAIL_AT runs have promoted a null, and passes as soon as the runs left cannot get there.
// Stopping early either way changes no outcome, so its operating characteristics are those of
// "fail when X ≥ FAIL_AT, X ~ Binomial(MAX_RUNS, p)", computed exactly below:
//   p = 10%: fails with probability 0.858 (the issue's bar: ≥ 80%);
//   p = 5%:  fails with probability 0.292;
//   p = 2%:  fails with probability 0.0148; p = 1%: 0.0008.
const MAX_RUNS = 72;
const FAIL_AT = 5;
// Limits against hangs, not speed targets: a null run trains about 14 gym branches.
const SEQUENTIAL_LIMIT_MS = 3_600_000;
const POWER_LIMIT_MS = 600_000;

function binomialTail(n: number, p: number, atLeast: number): number {
  let below = 0;
  let term = (1 - p) ** n;
  for (let k = 0; k < atLeast; k++) {
    below += term;
    term *= ((n - k) / (k + 1)) * (p / (1 - p));
  }
  return 1 - below;
}

describe("the CI gate-validity test's operating characteristics", () => {
  it("fails with probability ≥ 80% when the true per-run false-promotion rate is 10%, and rarely below 2%", () => {
    expect(binomialTail(MAX_RUNS, 0.1, FAIL_AT)).toBeCloseTo(0.858, 3);
    expect(binomialTail(MAX_RUNS, 0.1, FAIL_AT)).toBeGreaterThanOrEqual(0.8);
    expect(binomialTail(MAX_RUNS, 0.05, FAIL_AT)).toBeCloseTo(0.292, 3);
    expect(binomialTail(MAX_RUNS, 0.02, FAIL_AT)).toBeCloseTo(0.0148, 4);
    expect(binomialTail(MAX_RUNS, 0.01, FAIL_AT)).toBeCloseTo(0.0008, 4);
  });
});

describe("the per-run gate on the shipped gym examples", () => {
  it(`promotes a null intervention in fewer than ${FAIL_AT} of up to ${MAX_RUNS} null runs (sequential test)`, () => {
    const configs = new Map(DOMAINS.map((d) => [d, loadRunConfig(`examples/gym-${d}.yaml`)]));
    let falseRuns = 0;
    let runs = 0;
    const log: string[] = [];
    while (runs < MAX_RUNS && falseRuns < FAIL_AT && falseRuns + (MAX_RUNS - runs) >= FAIL_AT) {
      const domain = DOMAINS[runs % DOMAINS.length]!;
      const r = runGateTrials(configs.get(domain)!, { runs: 1, powerRuns: 0, seed: 700 + runs, ...SIZE });
      const run = r.nullRuns[0]!;
      expect(run.noiseDf[0], "round 1 has the new parent's three replicates: 2 df").toBe(2);
      expect(run.spent).toBeLessThanOrEqual(0.05 + 1e-12);
      if (run.falsePromotionRound !== null) {
        falseRuns++;
        log.push(`${domain} seed ${run.seed}: false promotion in round ${run.falsePromotionRound}`);
      }
      runs++;
    }
    console.log(`gate validity: ${falseRuns} of ${runs} null runs promoted a null${log.length ? `\n${log.join("\n")}` : ""}`);
    expect(falseRuns).toBeLessThan(FAIL_AT);
  }, SEQUENTIAL_LIMIT_MS);

  // With no validity limit, a hacking base's seeds split on whether a branch learns the hack, and
  // two or three controls from one side give no measure of the gap (17 of 160 null runs promoted at
  // full size). Such rounds go to a person: a gate that judged them would fail here.
  it.each(["code", "swe"] as const)("sends every null round of %s with gate.validityLimits: {} to a person, naming the unlimited label", (domain) => {
    const config = loadRunConfig(`examples/gym-${domain}.yaml`);
    config.gate.validityLimits = {};
    const r = runGateTrials(config, { runs: 2, powerRuns: 0, seed: 900, ...SIZE });
    expect(r.base!.hacks).toBe(true);
    expect([r.judgedRounds, r.toPerson, r.falsePromotion.k]).toEqual([0, 2 * SIZE.rounds, 0]);
    for (const reason of r.toPersonReasons) expect(reason).toMatch(/^validity label \w+ is on this round's rollouts \(.+\) and gate.validityLimits does not limit it/);
  }, POWER_LIMIT_MS);

  it("promotes dynamic sampling on math's first round in most runs", () => {
    const r = runGateTrials(loadRunConfig("examples/gym-math.yaml"), { runs: 0, powerRuns: 6, seed: 7, ...SIZE });
    const dynamic = r.power.find((p) => p.arm === "dynamic sampling")!;
    console.log(JSON.stringify(r.power));
    expect(dynamic.promoted).toBeGreaterThanOrEqual(4);
  }, POWER_LIMIT_MS);
});
