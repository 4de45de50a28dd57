import { describe, expect, it } from "vitest";
import { roundAlpha } from "./alpha-spending.ts";
import { judgeRound, type RoundTestOptions } from "./control-test.ts";
import { holm } from "./holm.ts";
import { addControlRound, NO_NOISE_FLOOR, seedSd } from "./noise-floor.ts";
import { studentTQuantileUpper, studentTUpperTail } from "./student-t.ts";

const scores = (values: number[]) => new Map(values.map((v, i) => [`t${i}`, v]));
const shifted = (base: number[], by: number) => scores(base.map((v) => v + by));
const BASE = Array.from({ length: 40 }, (_, i) => (i % 5) / 5);
const OPTIONS: RoundTestOptions = { alpha: 0.05, minEffect: 0, minNoiseDf: 2, samplesPerTask: 4 };

describe("student t", () => {
  it("matches tabulated one-sided quantiles", () => {
    // t_{0.95, df}: 6.314 (1), 2.920 (2), 1.812 (10); normal 1.645.
    expect(studentTQuantileUpper(0.05, 1)).toBeCloseTo(6.3138, 3);
    expect(studentTQuantileUpper(0.05, 2)).toBeCloseTo(2.92, 3);
    expect(studentTQuantileUpper(0.05, 10)).toBeCloseTo(1.8125, 3);
    expect(studentTUpperTail(1.6449, Infinity)).toBeCloseTo(0.05, 4);
    expect(studentTUpperTail(0, 5)).toBeCloseTo(0.5, 12);
  });
});

describe("holm", () => {
  it("steps down from alpha/K and stops at the first p-value that fails", () => {
    const r = holm([0.04, 0.01, 0.03], 0.05);
    expect(r.map((x) => x.level)).toEqual([0.05, 0.05 / 3, 0.025]);
    expect(r.map((x) => x.rejected)).toEqual([false, true, false]);
    expect(holm([0.011, 0.02], 0.05).map((x) => x.rejected)).toEqual([true, true]);
  });
});

describe("alpha spending over a run's rounds", () => {
  it("never lets the rounds together spend more than the run's alpha, and moves an untested round's share on", () => {
    const rounds = 4;
    let spent = 0;
    for (let round = 1; round <= rounds; round++) {
      const a = roundAlpha({ alpha: 0.05, rounds, round, spentBefore: spent });
      expect(a).toBeCloseTo(0.0125, 12);
      spent += a;
    }
    expect(spent).toBeCloseTo(0.05, 12);
    // Rounds beyond the budget (a run extended by hand) get nothing left.
    expect(roundAlpha({ alpha: 0.05, rounds, round: 5, spentBefore: spent })).toBeCloseTo(0, 12);
    // Round 1 tested nothing (every candidate failed before evaluation): round 2 may take both shares.
    expect(roundAlpha({ alpha: 0.05, rounds, round: 2, spentBefore: 0 })).toBeCloseTo(0.025, 12);
  });
});

describe("the noise floor", () => {
  it("pools the replicates' sum of squares over their degrees of freedom", () => {
    const floor = addControlRound(addControlRound(NO_NOISE_FLOOR, [0.5, 0.56]), [0.4, 0.44, 0.42]);
    expect(floor.df).toBe(3);
    expect(floor.sumSquares).toBeCloseTo(0.0018 + 0.0008, 10);
    expect(addControlRound(floor, [0.3])).toBe(floor);
  });

  it("never reads below one step of the score when the replicates tie", () => {
    const tied = addControlRound(NO_NOISE_FLOOR, [0.5, 0.5, 0.5]);
    expect(tied.df).toBe(2);
    expect(seedSd(tied, 1 / 256)).toBeCloseTo(1 / 256, 15);
    // 40 tasks × 4 samples: one step is 1/160, and the round's seed noise is that, not zero.
    const round = judgeRound(new Map([["c", shifted(BASE, 0.01)]]), [scores(BASE), scores(BASE)], tied, OPTIONS).get("c")!;
    expect(round.seedSd).toBeCloseTo(1 / 160, 15);
    expect(round.seSeed).toBeGreaterThan(0);
  });
});

describe("judgeRound", () => {
  const floor = addControlRound(addControlRound(NO_NOISE_FLOOR, [0.5, 0.56]), [0.4, 0.44, 0.42]);

  it("does not promote an effect the size of the seed noise, and promotes one well beyond it", () => {
    const controls = [scores(BASE), shifted(BASE, 0.02)];
    const round = judgeRound(new Map([["small", shifted(BASE, 0.05)], ["large", shifted(BASE, 0.4)]]), controls, floor, OPTIONS);
    const small = round.get("small")!;
    const large = round.get("large")!;
    expect(small.passed).toBe(false);
    expect(large.passed).toBe(true);
    expect(large.family).toBe(2);
    expect(large.rank).toBe(1);
    expect(large.level).toBeCloseTo(0.025, 12);
    expect(small.level).toBeCloseTo(0.05, 12);
    // The threshold is the smallest delta that would have passed at the candidate's Holm level.
    expect(large.threshold!).toBeGreaterThan(small.delta);
    expect(large.threshold!).toBeLessThan(large.delta);
    expect(large.seedSd).toBeCloseTo(Math.sqrt(0.0026 / 3), 10);
  });

  it("keeps candidates whose training failed in Holm's family", () => {
    const controls = [scores(BASE), shifted(BASE, 0.02)];
    const alone = judgeRound(new Map([["x", shifted(BASE, 0.3)]]), controls, floor, OPTIONS).get("x")!;
    const withFailed = judgeRound(new Map([["x", shifted(BASE, 0.3)]]), controls, floor, { ...OPTIONS, untested: 2 }).get("x")!;
    expect(alone).toMatchObject({ family: 1, level: 0.05 });
    expect(withFailed.family).toBe(3);
    expect(withFailed.level).toBeCloseTo(0.05 / 3, 12);
  });

  it("tests the gain against the minimum effect and shows the effect's lower bound against it", () => {
    const controls = [scores(BASE), shifted(BASE, 0.02)];
    const candidates = new Map([["x", shifted(BASE, 0.25)]]);
    const plain = judgeRound(candidates, controls, floor, OPTIONS).get("x")!;
    expect(plain.passed).toBe(true);
    expect(plain.lower!).toBeGreaterThan(0);
    expect(plain.lower!).toBeLessThan(0.2);
    // The same gain, now required to exceed a min effect above its lower bound: not shown.
    const demanding = judgeRound(candidates, controls, floor, { ...OPTIONS, minEffect: 0.2 }).get("x")!;
    expect(demanding.passed).toBe(false);
    expect(demanding.lower).toBeCloseTo(plain.lower!, 12);
    expect(demanding.threshold! - plain.threshold!).toBeCloseTo(0.2, 12);
    expect(demanding.reason).toMatch(/not shown to exceed the min effect 0.2/);
  });

  it("with fewer noise df than the minimum, says there are not enough controls to judge and promotes nothing", () => {
    const oneDf = addControlRound(NO_NOISE_FLOOR, [0.5, 0.56]);
    const x = judgeRound(new Map([["x", shifted(BASE, 0.5)]]), [scores(BASE), shifted(BASE, 0.06)], oneDf, OPTIONS).get("x")!;
    expect(x).toMatchObject({ passed: false, notEnoughControls: true, noiseDf: 1 });
    expect(x.reason).toMatch(/^not enough controls to judge: the seed noise has 1 degree\(s\) of freedom and the gate needs 2/);
  });

  it("promotes nothing once the run's alpha is spent", () => {
    const x = judgeRound(new Map([["x", shifted(BASE, 0.5)]]), [scores(BASE), shifted(BASE, 0.02)], floor, { ...OPTIONS, alpha: 0 }).get("x")!;
    expect(x.passed).toBe(false);
    expect(x.reason).toMatch(/error budget is spent/);
  });

  it("refuses to promote without a control or before any seed-noise estimate", () => {
    const c = new Map([["x", shifted(BASE, 0.5)]]);
    expect(judgeRound(c, [], floor, OPTIONS).get("x")!.reason).toMatch(/no control/);
    const noFloor = judgeRound(c, [scores(BASE)], NO_NOISE_FLOOR, OPTIONS).get("x")!;
    expect(noFloor.passed).toBe(false);
    expect(noFloor.notEnoughControls).toBe(true);
    expect(noFloor.reason).toMatch(/not enough controls to judge/);
  });
});
