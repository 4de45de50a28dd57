import { describe, expect, it } from "vitest";
import { backoffDelay } from "./backoff.ts";

const backoff = { initialDelayMs: 100, maxDelayMs: 1_000 };

describe("backoffDelay", () => {
  it("doubles per failure up to the cap", () => {
    const ceilings = [1, 2, 3, 4, 5, 6].map((failures) => backoffDelay(failures, backoff, () => 1));
    expect(ceilings).toEqual([100, 200, 400, 800, 1_000, 1_000]);
  });

  it("randomises the lower half only, so a delay never drops below half its ceiling", () => {
    expect(backoffDelay(3, backoff, () => 0)).toBe(200);
    expect(backoffDelay(3, backoff, () => 0.5)).toBe(300);
  });
});
