import { describe, expect, it } from "vitest";
import { crossedBudgetShare } from "./budget.ts";

describe("crossedBudgetShare", () => {
  it("is true only for the spend that crosses 80% of the budget", () => {
    expect(crossedBudgetShare(100, 70, 79.9, 0.8)).toBe(false);
    expect(crossedBudgetShare(100, 79.9, 80, 0.8)).toBe(true);
    expect(crossedBudgetShare(100, 0, 150, 0.8)).toBe(true);
    expect(crossedBudgetShare(100, 80, 95, 0.8)).toBe(false);
  });
});
