import { describe, expect, it } from "vitest";
import { runConfigSchema } from "@evotrainer/core";
import type { GateCalibrationRecord } from "@evotrainer/db";
import { runGateTrials } from "@evotrainer/gym";
import { readRunConfig } from "../config-files.ts";
import { calibrationInput, calibrationText, roundsJudgedOf, type RoundsJudged } from "./calibrate.ts";

// Test-sized trials: one round of few, short branches; the gym is seeded, so the outcome is exact.
const SIZE = { runs: 1, seed: 1, rounds: 1, steps: 2, adapter: { tasksPerStep: 4 } };
const AT = { organizationId: "org", runId: null, configHash: "0".repeat(64), seed: 1, trials: 1 };

const record = (change: Partial<GateCalibrationRecord> = {}): GateCalibrationRecord => ({
  id: "cal",
  runId: null,
  domain: "math",
  configHash: "0".repeat(64),
  seed: 1,
  trials: 2,
  falsePromotion: { k: 0, n: 2, rate: 0, interval: [0, 0.658] },
  power: [{ arm: "dynamic sampling", n: 2, promoted: 1, rate: 0.5, interval: [0.095, 0.905], meanDelta: 0.02, blockedBy: [] }],
  gateParameters: { alpha: 0.05, control: "sibling", rounds: 3, candidates: 2, replicates: 2, newParentReplicates: 3, minEffect: 0, minNoiseDf: 2, steps: 6, baseHacks: false },
  createdAt: new Date(0),
  ...change,
});

const judged = (change: Partial<RoundsJudged> = {}): RoundsJudged => ({ judged: 6, toPerson: 0, reasons: [], powerToPerson: { "dynamic sampling": 0 }, ...change });

describe("calibrationText", () => {
  it("says power was not measured with --power-runs 0, not a power of 0", () => {
    const text = calibrationText(record({ power: [] }), judged({ powerToPerson: {} }));
    expect(text).toMatch(/power: not measured \(--power-runs 0\)\.$/);
    expect(text).not.toMatch(/0\.0% \(95% CI 0\.0%–100\.0%\)/);
  });

  it("says no round was judged when every round went to a person, instead of a 0% rate", () => {
    const reason = "not enough controls to judge: the seed noise has 1 degree(s) of freedom and the gate needs 2; a person decides this round";
    const text = calibrationText(record(), judged({ judged: 0, toPerson: 6, reasons: [reason], powerToPerson: { "dynamic sampling": 2 } }));
    expect(text).toContain(`No round was judged: every round went to a person (${reason})`);
    expect(text).toContain("dynamic sampling not judged (its 2 first round(s) went to a person)");
    expect(text).not.toMatch(/% of runs|0\.0%/);
  });

  it("states the measured rate and power when the gate judged its rounds", () => {
    expect(calibrationText(record(), judged())).toBe(
      "This gate promotes a null intervention in 0.0% of runs (95% CI 0.0%–65.8%), measured on 2 null runs of 3 rounds of this math config; power in a first round: dynamic sampling 50.0% (95% CI 9.5%–90.5%).",
    );
  });
});

describe("calibrationInput", () => {
  it("stores no power rows with --power-runs 0 and baseHacks from the code base's validity labels, with gate.validityLimits: {}", () => {
    const config = runConfigSchema.parse({ ...readRunConfig("examples/gym-code.yaml"), gate: { ...readRunConfig("examples/gym-code.yaml").gate, validityLimits: {} } });
    const result = runGateTrials(config, { ...SIZE, powerRuns: 0 });
    const input = calibrationInput(result, AT);
    expect(input.power).toEqual([]);
    expect(input.gateParameters.baseHacks).toBe(true);
    // The hack is on the round and no limit judges it: the round is a person's (unlimitedValidity).
    expect(roundsJudgedOf(result)).toEqual({ judged: 0, toPerson: 1, reasons: [expect.stringMatching(/^validity label hardcoded_output is on this round's rollouts/)], powerToPerson: {} });
  });
});
