// The CI-sized version of the gate validity benchmark (npm run bench:gate, 100 trials per arm and
// domain): a few rounds of real gym training per domain, judged by the real gate.
import { describe, expect, it } from "vitest";
import { runGateTrials, type GymDomain } from "@evotrainer/gym";
import { loadRunConfig } from "./run-config.ts";

const OPTIONS = { trials: 6, seed: 7, steps: 20, tasksPerStep: 8, replicates: 2, carried: 2 };

describe.each(["math", "code", "swe"] as GymDomain[])("the seed-aware gate on gym %s", (domain) => {
  const result = runGateTrials(loadRunConfig(`examples/gym-${domain}.yaml`), OPTIONS);

  it("promotes at most one of 24 null candidates (two per null round, one beside each real one)", () => {
    console.log(domain, JSON.stringify(result.summary.map((s) => [s.arm, s.scorePassed, s.n, s.oldGateVsParent, s.meanDelta.toFixed(4)])));
    expect(result.falsePromotion.n).toBe(24);
    expect(result.falsePromotion.k).toBeLessThanOrEqual(1);
  });

  it("promotes dynamic sampling against the control in most rounds", () => {
    const dynamic = result.summary.find((s) => s.arm === "dynamic sampling")!;
    expect(dynamic.scorePassed).toBeGreaterThanOrEqual(5);
  });
});
