import { describe, expect, it } from "vitest";
import { informativeness } from "./informativeness.ts";
import { wilson } from "./wilson.ts";

describe("wilson", () => {
  it("matches the published interval for 81 of 263 (Newcombe 1998, table I)", () => {
    const [lo, hi] = wilson(81, 263);
    expect(lo).toBeCloseTo(0.2553, 4);
    expect(hi).toBeCloseTo(0.3662, 4);
  });
  it("stays inside [0, 1] at 0 and n successes, and is the whole range with no trials", () => {
    expect(wilson(0, 10)[0]).toBe(0);
    expect(wilson(10, 10)[1]).toBeCloseTo(1, 12);
    expect(wilson(10, 10)[0]).toBeCloseTo(0.7225, 4);
    expect(wilson(0, 0)).toEqual([0, 1]);
  });
});

describe("informativeness", () => {
  it("matches Newcombe's method 10 for 56/70 vs 48/80 (Newcombe 1998, difference example)", () => {
    const r = informativeness({ flaggedFailed: 56, failed: 70, flaggedSucceeded: 48, succeeded: 80 });
    expect(r.difference).toBeCloseTo(0.2, 6);
    expect(r.interval[0]).toBeCloseTo(0.0524, 3);
    expect(r.interval[1]).toBeCloseTo(0.3339, 3);
    expect(r.separates).toBe("failures");
  });
  it("marks a label that fires as often on successes as on failures as not separating", () => {
    // tool_error as found out of sample: 59% of resolved, 62% of unresolved SWE trajectories.
    const r = informativeness({ flaggedFailed: 62, failed: 100, flaggedSucceeded: 59, succeeded: 100 });
    expect(r.separates).toBe("none");
    expect(r.interval[0]).toBeLessThan(0);
    expect(r.interval[1]).toBeGreaterThan(0);
  });
  it("says a label that fires on successes marks successes (a hack the reward passes)", () => {
    expect(informativeness({ flaggedFailed: 1, failed: 50, flaggedSucceeded: 20, succeeded: 50 }).separates).toBe("successes");
  });
  it("does not judge with one side empty", () => {
    expect(informativeness({ flaggedFailed: 5, failed: 10, flaggedSucceeded: 0, succeeded: 0 }).separates).toBe("none");
  });
});
