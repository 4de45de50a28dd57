import { describe, expect, it } from "vitest";
import type { Rollout } from "@evotrainer/contract";
import { defaultRecipe, FACTOR_PATTERNS, type Label, type LineageEntry } from "@evotrainer/core";
import { input, labelled, LOCKED, report } from "../__fixtures__/proposer-input.ts";
import { buildEvidence } from "./evidence.ts";
import type { LlmContext } from "./llm-context.ts";

const SEALED = "SEALED-CANARY-0b7e";

function rollout(uid: string, split: Rollout["split"], reward: number, response: string): Rollout {
  return { uid, split, step: 3, taskId: `t-${uid}`, groupId: "g", sample: 0, prompt: `What is ${uid}?`, response, reward, rewardComponents: {}, responseTokens: 10, turns: 1, truncated: false };
}
const label = (uid: string, name: string): Label => ({ rolloutUid: uid, label: name, detectorId: `math.${name}`, detectorVersion: 1, validity: false, evidence: null });

const truncated = labelled("truncated", 0.5);
const roundInput = input({ domain: "math", report: report([truncated.finding], truncated.metrics), recipe: defaultRecipe(), k: 3 });
const context: LlmContext = {
  rollouts: [
    rollout("ok", "train", 1, "\\boxed{4}"),
    rollout("cut", "train", 0, "Let me think step by step ".repeat(200)),
    rollout("wrong", "train", 0, "\\boxed{5}"),
    // Evaluation rows never belong in a prompt, whatever a caller passes.
    rollout("held-out", "sealed", 1, `the sealed answer ${SEALED}`),
    rollout("gate", "promotion", 1, "PROMOTION-ONLY"),
  ],
  labels: [label("cut", "truncated"), label("held-out", "truncated")],
  history: [],
};

describe("buildEvidence", () => {
  it("names the task, the recipe, the factors, the locked paths and the report", () => {
    const text = buildEvidence(roundInput, context, { lockedPaths: ["/passthrough/verl/custom_eval"] }, 40_000);
    expect(text).toContain("Propose up to 3 single-factor interventions");
    expect(text).toContain('"maxResponseTokens":4096');
    expect(text).toContain("algo.maxResponseTokens: response length limit");
    expect(text).toContain("/passthrough/verl/custom_eval");
    expect(text).toContain("label:truncated");
    expect(text).toContain("Variables: uid, split");
  });

  it("lists the values the run's trainer renders for a factor that offers a choice", () => {
    const factors = FACTOR_PATTERNS.map((f) => (f.pattern.join(".") === "algo.estimator" ? { ...f, values: ["dr_grpo"] } : f));
    const text = buildEvidence({ ...roundInput, factors }, context, LOCKED, 40_000);
    expect(text).toContain("algo.estimator: advantage estimator (only: dr_grpo)");
    expect(text).toContain("algo.lr: actor learning rate\n");
  });

  it("shows training examples only, labelled ones first, each cut to its budget", () => {
    const text = buildEvidence(roundInput, context, LOCKED, 40_000);
    const examples = text.slice(text.indexOf("## Example rollouts"));
    expect(examples.indexOf('"uid":"cut"')).toBeLessThan(examples.indexOf('"uid":"wrong"'));
    expect(examples.indexOf('"uid":"wrong"')).toBeLessThan(examples.indexOf('"uid":"ok"'));
    expect(examples).toContain("characters cut]");
    expect(text).not.toContain(SEALED);
    expect(text).not.toContain("held-out");
    expect(text).not.toContain("PROMOTION-ONLY");
    // The locked evaluation's splits (datasets, graders) are not evidence.
    expect(text).not.toContain(LOCKED.sealed.dataset);
  });

  it("never exceeds its character budget, cutting the least important sections first", () => {
    const lineage: LineageEntry[] = Array.from({ length: 50 }, (_, i) => ({ branchId: `b${i}`, recipeHash: `h${i}`, decisions: [{ kind: "veto", stage: "design", actor: { kind: "human", userId: "u" }, reason: `reason ${i} `.repeat(20) }] }));
    for (const max of [2_000, 6_000, 12_000]) {
      const text = buildEvidence({ ...roundInput, lineage }, context, LOCKED, max);
      expect(text.length).toBeLessThanOrEqual(max);
      expect(text).toContain("## Task");
    }
    const tight = buildEvidence({ ...roundInput, lineage }, context, LOCKED, 12_000);
    // The newest branch is kept, older ones are counted as left out, and examples did not fit.
    expect(tight).toContain('"branch":"b49"');
    expect(tight).toMatch(/\(\d+ more left out for length\)/);
    expect(tight).not.toContain("## Example rollouts");
  });
});
