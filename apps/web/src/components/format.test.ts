import { describe, expect, it } from "vitest";
import { findingEvidence } from "./branch/finding-evidence";
import { nothingMeasured } from "./branch/nothing-measured";
import { fmtDelta, fmtNumber } from "./format";

describe("numbers a person reads", () => {
  it("keeps four significant digits, drops trailing zeros and leaves whole numbers whole", () => {
    expect(fmtNumber(0.4583333333333333)).toBe("0.4583");
    expect(fmtNumber(0.05)).toBe("0.05");
    expect(fmtNumber(-176)).toBe("-176");
    expect(fmtNumber(12.34567)).toBe("12.35");
    expect(fmtNumber(null)).toBe("—");
  });
  it("writes a whole-number change as an integer with its sign", () => {
    expect(fmtDelta(-176)).toBe("-176");
    expect(fmtDelta(7)).toBe("+7");
    expect(fmtDelta(0.0612)).toBe("+0.061");
  });
  it("says a finding's evidence in words: metrics rounded, counts as rollouts, examples counted", () => {
    expect(findingEvidence({ metrics: { dead_group_ratio: 0.5833333 }, counts: { truncated: 12 }, exampleUids: ["a", "b"] })).toBe("dead group ratio 0.5833 · truncated: 12 rollouts · 2 example rollouts");
    expect(findingEvidence({ metrics: { "label_rate.truncated": 0.2 }, counts: {}, exampleUids: [] })).toBe("truncated 0.2");
  });
  it("treats a comparison whose every measured number is zero as having measured nothing", () => {
    expect(nothingMeasured({ delta: 0, se: 0, threshold: 0, p: 1, df: 64, holmRank: 2, holmLevel: 0.05 })).toBe(true);
    expect(nothingMeasured({ delta: 0.01, se: 0, p: 0.4 })).toBe(false);
    expect(nothingMeasured({ rate: 0, limit: 0.05 })).toBe(false);
  });
});
