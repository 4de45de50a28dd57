import { describe, expect, it } from "vitest";
import { recipeDiff, recipeDifferences } from "./recipe-diff";

describe("recipe differences", () => {
  it("lists only the leaves on which some recipe differs, with every recipe's value", () => {
    const a = JSON.stringify({ algo: { lr: 1e-6, temperature: 1 }, env: {} });
    const b = JSON.stringify({ algo: { lr: 1e-6, temperature: 0.8 }, env: {} });
    const c = JSON.stringify({ algo: { lr: 1e-6, temperature: 1 }, env: { readOnlyTests: true } });
    expect(recipeDifferences([a, b, c])).toEqual([
      { path: "/algo/temperature", values: ["1", "0.8", "1"] },
      { path: "/env/readOnlyTests", values: [null, null, "true"] },
    ]);
    expect(recipeDifferences([a, a])).toEqual([]);
    const d = JSON.stringify({ reward: { components: [{ name: "format", weight: 1 }] } });
    const e = JSON.stringify({ reward: { components: [{ name: "format", weight: 0.5 }] } });
    expect(recipeDifferences([d, e])).toEqual([{ path: "/reward/components/0/weight", values: ["1", "0.5"] }]);
    expect(recipeDiff(a, b)).toEqual([{ path: "/algo/temperature", before: "1", after: "0.8" }]);
  });
});
