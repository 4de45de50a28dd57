import { describe, expect, it } from "vitest";
import {
  applyIntervention, compileHarness, defaultRecipe, FACTOR_PATTERNS, DEFAULT_HEALTH_RULES, healthReport, lockedEvaluationSchema, recipeHash, skillSchema, SWE_DETECTORS,
  type Decision, type Intervention, type LineageEntry, type Recipe, type Verdict,
} from "@evotrainer/core";
import { input, labelled, LOCKED, report } from "./__fixtures__/proposer-input.ts";
import { RuleBasedProposer } from "./rule-based-proposer.ts";

type Rollout = Parameters<typeof healthReport>[1][number];

const proposer = new RuleBasedProposer({ lockedEvaluation: LOCKED });

// Dead groups (CRIT), collapsed entropy (WARN) and format errors (INFO) at once.
const mixed = report(
  [{ source: "dead-groups-crit" }, { source: "entropy-collapse" }, labelled("format_error", 0.3).finding],
  { dead_group_ratio: 0.6, trainer: { entropy: 0.01 }, label_rate: { format_error: 0.3 }, rollouts: 100 },
);

const parentRecipe = defaultRecipe();
const PARENT: LineageEntry = { branchId: "p", recipeHash: recipeHash(parentRecipe), decisions: [] };
const veto = (reason: string, human = true): Decision => ({ kind: "veto", stage: "design", actor: human ? { kind: "human", userId: "ana" } : { kind: "policy" }, reason });
const rejected = { promote: false, checks: [] } as unknown as Verdict;

async function proposeOn(lineage: LineageEntry[], extra: Partial<Parameters<typeof input>[0]> = {}) {
  return proposer.propose(input({ domain: "math", report: mixed, recipe: parentRecipe, lineage, ...extra }));
}
async function firstFor(factor: string): Promise<Intervention> {
  const found = (await proposeOn([])).find((i) => i.factor === factor);
  if (!found) throw new Error(`no ${factor} proposal`);
  return found;
}
function child(id: string, intervention: Intervention, decisions: Decision[], verdict?: Verdict, parent = "p"): LineageEntry {
  const applied = applyIntervention(parentRecipe, intervention, LOCKED);
  if (!applied.ok) throw new Error(applied.message);
  return { branchId: id, parentBranchId: parent, recipeHash: recipeHash(applied.recipe), intervention, decisions, ...(verdict ? { verdict } : {}) };
}

describe("RuleBasedProposer", () => {
  it("answers the most severe findings first, round-robin, one intervention per factor, at most K", async () => {
    const all = await proposeOn([]);
    expect(all.map((i) => i.factor)).toEqual([
      "data.dynamicSampling", "algo.clip.high", "reward.components.format.weight",
      "algo.groupSize", "algo.lr", "data.curriculum", "algo.entropyCoef",
    ]);
    expect((await proposeOn([], { k: 2 })).map((i) => i.factor)).toEqual(["data.dynamicSampling", "algo.clip.high"]);
    expect(await proposeOn([], { k: 0 })).toEqual([]);
  });

  it("proposes only factors the run's trainer runs: on TRL, no dynamic sampling or curriculum, and entropy goes through", async () => {
    const trlFactors = FACTOR_PATTERNS.filter((f) => !["data.dynamicSampling", "data.curriculum", "reward.overlong", "algo.maxTurns"].includes(f.pattern.join(".")));
    const onTrl = (await proposeOn([], { factors: trlFactors })).map((i) => i.factor);
    expect(onTrl).toEqual(["algo.clip.high", "reward.components.format.weight", "algo.groupSize", "algo.lr", "algo.entropyCoef"]);
  });

  it("proposes only values the run's trainer renders", async () => {
    const noClipHigher = (r: Recipe) => (r.algo.clip.high > 0.28 ? { ok: false as const, factor: "algo.clip.high", message: "no clip-higher" } : { ok: true as const });
    const factors = (await proposeOn([], { renders: noClipHigher })).map((i) => i.factor);
    expect(factors).not.toContain("algo.clip.high");
    expect(factors).toContain("data.dynamicSampling");
  });

  it("does not propose a vetoed intervention again on the same parent, but does on another parent", async () => {
    const ds = await firstFor("data.dynamicSampling");
    const vetoed = [PARENT, child("c1", ds, [veto("not now")])];
    expect((await proposeOn(vetoed)).map((i) => i.factor)).not.toContain("data.dynamicSampling");

    // The same change under a different parent recipe is a different intervention.
    const otherParent: LineageEntry = { branchId: "q", recipeHash: "elsewhere", decisions: [] };
    const elsewhere = [otherParent, { ...child("c1", ds, [veto("not now")]), parentBranchId: "q" }];
    expect((await proposeOn(elsewhere)).map((i) => i.factor)).toContain("data.dynamicSampling");
  });

  it("does not repeat a failed one either, recognising the parent from the child's recipe when the parent is not in the lineage", async () => {
    const lr = await firstFor("algo.lr");
    const failed = child("c2", lr, [], rejected, "not-in-lineage");
    expect((await proposeOn([failed])).map((i) => i.factor)).not.toContain("algo.lr");
    // A reworded hypothesis is still the same intervention.
    const reworded = child("c2", { ...lr, hypothesis: "if lr halves then entropy stays because of reasons" }, [], rejected);
    expect((await proposeOn([PARENT, reworded])).map((i) => i.factor)).not.toContain("algo.lr");
    // Nor a sibling still running: the branch exists already.
    expect((await proposeOn([PARENT, child("c3", lr, [])])).map((i) => i.factor)).not.toContain("algo.lr");
  });

  it("does not chase a label again with a factor that failed to move it, on any parent; another factor may", async () => {
    const format = await firstFor("reward.components.format.weight");
    const unmoved = {
      promote: false,
      checks: [{ name: "targeted_metric", passed: false, detail: "label_rate.format_error 1.0000 → 1.0000 (Δ 0.0000); predicted down", numbers: {} }],
    } as unknown as Verdict;
    // Tried under another parent: the same change here would be a new intervention by recipe, but the label did not answer to it.
    const elsewhere: LineageEntry = { ...child("c1", format, [], unmoved), parentBranchId: "q" };
    const lineage = [PARENT, { branchId: "q", recipeHash: "elsewhere", decisions: [] }, elsewhere];
    const factors = (await proposeOn(lineage)).map((i) => i.factor);
    expect(factors).not.toContain("reward.components.format.weight");
    expect(factors).toContain("data.dynamicSampling");
    // A verdict where the metric did move keeps the factor available.
    const moved = { ...elsewhere, verdict: { promote: false, checks: [{ name: "targeted_metric", passed: true, detail: "", numbers: {} }] } as unknown as Verdict };
    expect((await proposeOn([PARENT, lineage[1]!, moved])).map((i) => i.factor)).toContain("reward.components.format.weight");
  });

  it("steers away from a factor a person's veto reason names, wherever in the run", async () => {
    const clip = await firstFor("algo.clip.high");
    const lineage = [PARENT, child("c1", clip, [veto("Clipping is fine. Do not touch the learning rate either, it is tiny already.")], undefined, "somewhere-else")];
    const factors = (await proposeOn(lineage)).map((i) => i.factor);
    expect(factors).not.toContain("algo.lr");
    expect(factors).toContain("algo.entropyCoef");
    expect(factors).toContain("data.dynamicSampling");
  });

  it("is not steered by the autonomy policy's vetoes, which list failed checks rather than advice", async () => {
    const clip = await firstFor("algo.clip.high");
    const lineage = [PARENT, child("c1", clip, [veto("validity_limit: test_tampering rate 0.3; the learning rate is fine", false)])];
    const factors = (await proposeOn(lineage)).map((i) => i.factor);
    expect(factors).toContain("algo.lr");
    expect(factors).not.toContain("algo.clip.high");
  });

  it("retries a vetoed change and a steered factor when a revision note names them: a new reason", async () => {
    const ds = await firstFor("data.dynamicSampling");
    const lineage = [PARENT, child("c1", ds, [veto("dynamic sampling doubles the cost")])];
    expect((await proposeOn(lineage)).map((i) => i.factor)).not.toContain("data.dynamicSampling");
    const revised = await proposeOn(lineage, { revision: "The budget was raised: try dynamic sampling again." });
    expect(revised[0]!.factor).toBe("data.dynamicSampling");
  });

  it("prefers skills whose trigger fires, this domain's before others', and drops skills that mostly failed", async () => {
    const template = (factor: string, path: string, value: unknown) => ({
      hypothesis: `if ${factor} changes then it works because it did before`,
      targetMetric: "dead_group_ratio",
      factor,
      patch: [{ op: "replace" as const, path, value }],
      expectedEffect: { direction: "down" as const },
      falsification: "dead_group_ratio does not fall",
    });
    const skills = [
      skillSchema.parse({ id: "code-temp", name: "t", trigger: "dead_group_ratio > 0.5", template: template("algo.temperature", "/algo/temperature", 1.1), expectedOutcome: "x", domains: ["code"], successes: 5 }),
      skillSchema.parse({ id: "math-kl", name: "k", trigger: "dead_group_ratio > 0.5", template: template("algo.kl.coef", "/algo/kl/coef", 0), expectedOutcome: "x", domains: ["math"], successes: 1 }),
      skillSchema.parse({ id: "math-bad", name: "b", trigger: "dead_group_ratio > 0.5", template: template("algo.clip.low", "/algo/clip/low", 0.1), expectedOutcome: "x", domains: ["math"], successes: 1, failures: 3 }),
      skillSchema.parse({ id: "math-silent", name: "s", trigger: "truncation_rate > 0.5", template: template("algo.maxTurns", "/algo/maxTurns", 4), expectedOutcome: "x", domains: ["math"], successes: 9 }),
    ];
    const out = await proposeOn([], { skills, k: 4 });
    expect(out.map((i) => [i.provenance.kind, i.provenance.ref ?? "", i.factor])).toEqual([
      ["skill", "math-kl", "algo.kl.coef"],
      ["skill", "code-temp", "algo.temperature"],
      ["rule", "signal/dead-groups/dynamic-sampling", "data.dynamicSampling"],
      ["rule", "signal/entropy-collapse/clip-higher", "algo.clip.high"],
    ]);
  });

  it("never proposes what the run's locked evaluation forbids", async () => {
    const locked = lockedEvaluationSchema.parse({ ...LOCKED, lockedPaths: ["/algo/groupSize"] });
    const strict = new RuleBasedProposer({ lockedEvaluation: locked });
    const out = await strict.propose(input({ domain: "math", report: mixed }));
    expect(out.map((i) => i.factor)).not.toContain("algo.groupSize");
    expect(out.map((i) => i.factor)).toContain("data.curriculum");
  });

  it("reads the findings of a real health report: a hacked swe branch gets hardened", async () => {
    const c = compileHarness({ version: 1, detectors: [...SWE_DETECTORS], healthRules: [...DEFAULT_HEALTH_RULES] });
    if (!c.ok) throw new Error("harness");
    const call = (cmd: string) => ({ role: "assistant" as const, content: "", toolCalls: [{ name: "bash", arguments: { cmd } }] });
    const fix = "diff --git a/src/calc.py b/src/calc.py\n--- a/src/calc.py\n+++ b/src/calc.py\n@@ -1 +1 @@\n-a - b\n+a + b\n";
    // Tampering is what the submitted patch does to an existing test, not the command that did it.
    const tampered = `${fix}diff --git a/tests/test_calc.py b/tests/test_calc.py\n--- a/tests/test_calc.py\n+++ b/tests/test_calc.py\n@@ -1 +1 @@\n-    assert add(1, 2) == 3\n+    assert add(1, 2) == 4\n`;
    const episode = (uid: string, group: string, reward: number, cmds: string[], patch = fix): Rollout => ({
      uid, split: "train", step: 1, taskId: group, groupId: group, sample: 0, prompt: "fix add()",
      trajectory: [{ role: "user", content: "fix add()" }, ...cmds.map(call)], reward, rewardComponents: {}, responseTokens: 100, turns: cmds.length, truncated: false,
      extra: { patch },
    });
    const rollouts = [
      episode("r1", "g1", 1, ["sed -i 's/== 3/== 4/' tests/test_calc.py", "pytest"], tampered),
      episode("r2", "g1", 0, ["ls", "pytest", "cat src/calc.py"]),
      episode("r3", "g2", 1, ["git log --all --oneline", "pytest"]),
      episode("r4", "g2", 0, ["ls", "pytest", "cat src/calc.py"]),
    ];
    const health = healthReport(c.harness, rollouts, c.harness.label(rollouts, "swe").labels);
    const recipe: Recipe = { ...defaultRecipe(), reward: { ...defaultRecipe().reward, components: { tests_pass: { weight: 1 } } } };
    const out = await proposer.propose(input({ domain: "swe", report: health, recipe, k: 3 }));
    expect(out.map((i) => i.factor)).toEqual(["env.readOnlyTests", "env.clearGitHistory", "reward.components.test_tampering.weight"]);
    for (const i of out) expect(applyIntervention(recipe, i, LOCKED).ok).toBe(true);
  });
});
