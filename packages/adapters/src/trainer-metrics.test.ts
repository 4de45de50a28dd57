import { describe, expect, it } from "vitest";
import { trainerMetrics } from "./trainer-metrics.ts";

describe("trainerMetrics", () => {
  it("adds the short names health rules read, keeping verl's names", () => {
    expect(trainerMetrics({ "actor/entropy": 0.4, "actor/kl_loss": 0.01, "actor/pg_clipfrac": 0.2, "critic/score/mean": 0.5 })).toEqual({
      "actor/entropy": 0.4,
      "actor/kl_loss": 0.01,
      "actor/pg_clipfrac": 0.2,
      "critic/score/mean": 0.5,
      entropy: 0.4,
      kl: 0.01,
      clip_fraction: 0.2,
    });
  });

  it("never overwrites a short name the trainer logged itself", () => {
    expect(trainerMetrics({ "actor/entropy": 0.4, entropy: 0.3 }).entropy).toBe(0.3);
  });
});
