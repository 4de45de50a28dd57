import { describe, expect, it } from "vitest";
import type { Rollout } from "@evotrainer/contract";
import { compileHarness } from "./harness.ts";
import { healthReport } from "./health-report.ts";

function r(uid: string, reward: number, response: string): Rollout {
  return { uid, split: "train", step: 1, taskId: uid, groupId: uid, sample: 0, prompt: "q", response, reward, rewardComponents: {}, responseTokens: 10, turns: 1, truncated: false, groundTruth: "4" };
}

describe("the health report's label census", () => {
  it("ranks labels by informativeness and marks one that fires as often on successes as on failures", () => {
    const detector = (label: string, word: string) => ({ id: `math.${label}`, label, version: 1, domains: ["math" as const], description: label, when: `response.contains('${word}')` });
    const compiled = compileHarness({ version: 1, detectors: [detector("everywhere", "NOISE"), detector("on_failures", "BROKEN")], healthRules: [] });
    if (!compiled.ok) throw new Error(JSON.stringify(compiled.rejections));
    // 30 failed and 30 successful rollouts: NOISE on half of each, BROKEN on 20 failures and 1 success.
    const rollouts = Array.from({ length: 60 }, (_, i) => {
      const failed = i < 30;
      const words = [i % 2 === 0 ? "NOISE" : "", (failed && i < 20) || i === 45 ? "BROKEN" : ""].join(" ");
      return r(`u${i}`, failed ? 0 : 1, `answer ${words}`);
    });
    const { labels } = compiled.harness.label(rollouts, "math");
    const census = healthReport(compiled.harness, rollouts, labels).layers.behaviour.filter((f) => f.source.startsWith("label:"));

    // "everywhere" fires on more rollouts, yet the label that separates comes first.
    expect(census.map((f) => f.source)).toEqual(["label:on_failures", "label:everywhere"]);
    expect(census[0]!.informativeness).toMatchObject({ separates: "failures", failedRate: 20 / 30, succeededRate: 1 / 30 });
    expect(census[0]!.evidence.metrics["informativeness.on_failures"]).toBeCloseTo(19 / 30, 12);
    expect(census[1]!.informativeness!.separates).toBe("none");
    expect(census[1]!.title).toBe("everywhere on 30 of 60 rollouts (does not separate failure from success)");
  });
});
