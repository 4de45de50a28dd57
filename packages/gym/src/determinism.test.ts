import { describe, expect, it } from "vitest";
import { rolloutRow } from "./rollout-rows.ts";
import { trainBranch, type TrainedBranch } from "./test-support.ts";

const rows = (b: TrainedBranch) => b.batches.map((batch, i) => batch.flatMap((g, k) => g.map((s) => rolloutRow("train", i + 1, `${i + 1}-${k}-${s.task.id}`, s))));

describe("determinism per seed", () => {
  it("replays the same rollouts, metrics and parameters for the same seed, and differs for another", () => {
    for (const domain of ["math", "code", "swe"] as const) {
      const a = trainBranch(domain, () => {}, 5, 11);
      const b = trainBranch(domain, () => {}, 5, 11);
      const c = trainBranch(domain, () => {}, 5, 12);
      expect(JSON.stringify(rows(b))).toBe(JSON.stringify(rows(a)));
      expect(b.metrics).toEqual(a.metrics);
      expect(Array.from(b.policy.params)).toEqual(Array.from(a.policy.params));
      expect(JSON.stringify(rows(c))).not.toBe(JSON.stringify(rows(a)));
    }
  });
});
