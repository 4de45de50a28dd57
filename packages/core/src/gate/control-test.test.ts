import { describe, expect, it } from "vitest";
import { judgeRound } from "./control-test.ts";
import { holm } from "./holm.ts";
import { addControlRound, NO_NOISE_FLOOR } from "./noise-floor.ts";
import { studentTQuantileUpper, studentTUpperTail } from "./student-t.ts";

const scores = (values: number[]) => new Map(values.map((v, i) => [`t${i}`, v]));
const shifted = (base: number[], by: number) => scores(base.map((v) => v + by));
const BASE = Array.from({ length: 40 }, (_, i) => (i % 5) / 5);

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

describe("judgeRound", () => {
  const floor = addControlRound(addControlRound(NO_NOISE_FLOOR, [0.5, 0.56]), [0.4, 0.44, 0.42]);

  it("pools the replicates' sum of squares over their degrees of freedom", () => {
    expect(floor.df).toBe(3);
    expect(floor.sumSquares).toBeCloseTo(0.0018 + 0.0008, 10);
    expect(addControlRound(floor, [0.3])).toBe(floor);
  });

  it("does not promote an effect the size of the seed noise, and promotes one well beyond it", () => {
    const controls = [scores(BASE), shifted(BASE, 0.02)];
    const round = judgeRound(new Map([["small", shifted(BASE, 0.05)], ["large", shifted(BASE, 0.4)]]), controls, floor, 0.05);
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

  it("refuses to promote without a control or before any seed-noise estimate", () => {
    const c = new Map([["x", shifted(BASE, 0.5)]]);
    expect(judgeRound(c, [], floor, 0.05).get("x")!.reason).toMatch(/no control/);
    const noFloor = judgeRound(c, [scores(BASE)], NO_NOISE_FLOOR, 0.05).get("x")!;
    expect(noFloor.passed).toBe(false);
    expect(noFloor.reason).toMatch(/no seed-noise estimate/);
  });
});
