import { describe, expect, it } from "vitest";
import { applyIntervention, defaultRecipe, FACTOR_PATTERNS, recipeHash, type Intervention, type LineageEntry, type Recipe } from "@evotrainer/core";
import { input, LOCKED } from "../__fixtures__/proposer-input.ts";
import { checkOutput } from "./check-output.ts";
import type { ProposalOutput } from "./proposal-output.ts";

const recipe = defaultRecipe();
const provenance = { kind: "llm" as const, ref: "m" };
type Proposed = ProposalOutput["interventions"][number];

const lr: Proposed = {
  hypothesis: "if the learning rate doubles, reward rises faster",
  targetMetric: "reward_mean",
  factor: "algo.lr",
  patch: [{ op: "replace", path: "/algo/lr", value: 2e-6 }],
  expectedEffect: { direction: "up" },
  falsification: "reward_mean does not rise",
};
const output = (interventions: Proposed[], detectors?: ProposalOutput["detectors"]): ProposalOutput => ({
  diagnosis: "d",
  hypotheses: ["h"],
  interventions,
  ...(detectors ? { detectors } : {}),
});
const check = (o: ProposalOutput, overrides: Parameters<typeof input>[0] = {}) => checkOutput(o, input({ domain: "math", recipe, k: 2, ...overrides }), LOCKED, provenance);

describe("checkOutput", () => {
  it("passes single-factor interventions, stamps provenance and keeps at most K", () => {
    const temperature: Proposed = { ...lr, factor: "algo.temperature", patch: [{ op: "replace", path: "/algo/temperature", value: 0.8 }] };
    const clip: Proposed = { ...lr, factor: "algo.clip.high", patch: [{ op: "replace", path: "/algo/clip/high", value: 0.3 }] };
    const out = check(output([lr, temperature, clip]));
    expect(out.rejections).toEqual([]);
    expect(out.interventions.map((i) => i.factor)).toEqual(["algo.lr", "algo.temperature"]);
    expect(out.interventions[0]!.provenance).toEqual(provenance);
  });

  it("refuses what applyIntervention refuses: several factors, the locked evaluation, undeclared paths, a mislabelled factor", () => {
    const out = check(
      output([
        { ...lr, patch: [...lr.patch, { op: "replace", path: "/algo/temperature", value: 0.8 }] },
        { ...lr, factor: "eval", patch: [{ op: "add", path: "/eval", value: { temperature: 0 } }] },
        { ...lr, factor: "algo.lr", patch: [{ op: "add", path: "/notes", value: "x" }] },
        { ...lr, factor: "algo.temperature" },
      ]),
    );
    expect(out.interventions).toEqual([]);
    expect(out.rejections).toEqual([
      "intervention 1 (factor algo.lr): multiple_factors: changes 2 factors (algo.lr, algo.temperature); an intervention changes exactly one",
      "intervention 2 (factor eval): touches_locked_evaluation: add /eval touches the locked evaluation (/eval)",
      "intervention 3 (factor algo.lr): unknown_factor: changes /notes, which is no declared factor",
      "intervention 4 (factor algo.temperature): factor_mismatch: declares factor algo.temperature but changes algo.lr",
    ]);
  });

  it("refuses a factor the run's trainer cannot run, which the prompt did not list", () => {
    const dynamic = { ...lr, factor: "data.dynamicSampling", patch: [{ op: "replace" as const, path: "/data/dynamicSampling/enabled", value: true }] };
    const withoutDynamic = FACTOR_PATTERNS.filter((f) => f.pattern.join(".") !== "data.dynamicSampling");
    expect(check(output([dynamic]), { factors: withoutDynamic }).rejections).toEqual([
      "intervention 1 (factor data.dynamicSampling): the run's trainer cannot run this factor; choose one of the listed factors",
    ]);
    expect(check(output([dynamic]), { factors: FACTOR_PATTERNS }).interventions.map((i) => i.factor)).toEqual(["data.dynamicSampling"]);
  });

  it("refuses a value the run's trainer does not render, with the trainer's reason", () => {
    const rloo = { ...lr, factor: "algo.estimator", patch: [{ op: "replace" as const, path: "/algo/estimator", value: "rloo" }] };
    const grpoOnly = (r: Recipe) => (r.algo.estimator === "grpo" ? { ok: true as const } : { ok: false as const, factor: "algo.estimator", message: `trl cannot run recipe factor algo.estimator: no ${r.algo.estimator}` });
    expect(check(output([rloo, lr]), { renders: grpoOnly })).toMatchObject({
      interventions: [{ factor: "algo.lr" }],
      rejections: ["intervention 1 (factor algo.estimator): trl cannot run recipe factor algo.estimator: no rloo; choose one of the listed values"],
    });
  });

  it("refuses an intervention already tried on this parent, and a repeat within the answer", () => {
    const applied = applyIntervention(recipe, { ...lr, provenance }, LOCKED);
    if (!applied.ok) throw new Error(applied.message);
    const lineage: LineageEntry[] = [
      { branchId: "p", recipeHash: recipeHash(recipe), decisions: [] },
      { branchId: "c", parentBranchId: "p", recipeHash: recipeHash(applied.recipe), intervention: { ...lr, provenance: { kind: "rule" } }, decisions: [] },
    ];
    expect(check(output([lr]), { lineage }).rejections).toEqual(["intervention 1 (factor algo.lr): already tried on this parent (it exists); propose something new"]);
    expect(check(output([lr, lr])).rejections).toEqual(["intervention 2 (factor algo.lr): repeats an earlier intervention of this answer"]);
  });

  it("puts detectors through the CEL guards and their own cases, and gives them the harness's id, version and domain", () => {
    const cases = { match: [{ name: "long", rollout: { response: "x", responseTokens: 900 } }], noMatch: [{ name: "short", rollout: { response: "x", responseTokens: 10 } }] };
    const out = check(
      output(
        [lr],
        [
          { label: "long_answer", description: "long", when: "response_tokens > 800", cases },
          { label: "shell_out", description: "unsafe", when: "system('ls') == ''", cases },
          { label: "backwards", description: "wrong cases", when: "response_tokens < 800", cases },
        ],
      ),
    );
    expect(out.detectors).toEqual([expect.objectContaining({ id: expect.stringMatching(/^llm\.math\.long_answer\.[0-9a-f]{12}$/), version: 1, domains: ["math"], validity: false, when: "response_tokens > 800" })]);
    expect(out.rejections[0]).toMatch(/^detector shell_out: when: .*unknown function 'system'/);
    expect(out.rejections[1]).toBe('detector backwards: fails its own cases: case "long" expected a match, got false; case "short" expected no match, got true');
  });
});
