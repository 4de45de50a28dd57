import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { runConfigSchema, type RunConfig } from "@evotrainer/core";
import { runGateTrials } from "./gate-trials.ts";

// Test-sized trials: one round of few, short branches; the gym is seeded, so the counts are exact.
const SIZE = { runs: 1, seed: 1, rounds: 1, steps: 2, adapter: { tasksPerStep: 4 } };

type RawConfig = { search: Record<string, unknown>; gate: Record<string, unknown> };

/** A shipped gym example as `evotrainer calibrate` reads it, changed before the schema checks it. */
function example(domain: "math" | "code", change: (raw: RawConfig) => void = () => {}): RunConfig {
  const raw = parse(readFileSync(new URL(`../../../../examples/gym-${domain}.yaml`, import.meta.url), "utf8")) as RawConfig;
  change(raw);
  return runConfigSchema.parse(raw);
}

describe("runGateTrials", () => {
  it("has no power rows with no power runs, rather than each arm's 0 of 0 as a rate of 0", () => {
    expect(runGateTrials(example("math"), { ...SIZE, powerRuns: 0 }).power).toEqual([]);
    const measured = runGateTrials(example("math"), { ...SIZE, powerRuns: 1 }).power;
    expect(measured.map((p) => [p.arm, p.n, p.toPerson])).toEqual([["dynamic sampling", 1, 0], ["curriculum (pass rate 0.1–0.9)", 1, 0]]);
  });

  it("counts the null rounds the gate judged: none when every round goes to a person for want of controls", () => {
    // Two replicates for a new parent give the seed noise 1 df, under gate.minNoiseDf 2, and one
    // replicate a round adds none: no round has enough controls.
    const few = example("math", (raw) => {
      raw.search = { ...raw.search, controlReplicates: 1, newParentControlReplicates: 2 };
    });
    const r = runGateTrials(few, { ...SIZE, rounds: 2, powerRuns: 1 });
    expect(r.judgedRounds).toBe(0);
    expect(r.toPerson).toBe(2);
    expect(r.falsePromotion.k).toBe(0);
    expect(r.toPersonReasons).toEqual([expect.stringMatching(/^not enough controls to judge: the seed noise has 1 degree\(s\) of freedom and the gate needs 2/)]);
    expect(r.power.map((p) => p.toPerson)).toEqual([1, 1]);

    const enough = runGateTrials(example("math"), { ...SIZE, powerRuns: 0 });
    expect([enough.judgedRounds, enough.toPerson, enough.toPersonReasons]).toEqual([1, 0, []]);
  });

  it("says the base hacks from its validity-labelled rollouts, whatever gate.validityLimits names", () => {
    const noLimits = example("code", (raw) => {
      raw.gate.validityLimits = {};
    });
    const base = runGateTrials(noLimits, { ...SIZE, powerRuns: 0 }).base!;
    expect(base.hacks).toBe(true);
    expect(base.validity.map((v) => v.label)).toEqual(["hardcoded_output"]);
    expect(base.validity[0]!.train).toBeGreaterThan(0);
    expect(base.failed.some((f) => f.startsWith("validity_limit"))).toBe(false);

    // Math's base prints no outputs and tampers with nothing: no validity label, no hack.
    expect(runGateTrials(example("math"), { ...SIZE, powerRuns: 0 }).base).toMatchObject({ hacks: false, validity: [] });
  });
});
