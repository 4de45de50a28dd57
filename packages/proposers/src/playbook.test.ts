import { describe, expect, it } from "vitest";
import { applyIntervention, defaultRecipe, interventionSchema, type BranchMetrics, type Recipe } from "@evotrainer/core";
import { input, labelled, LOCKED, report, type FindingSpec } from "./__fixtures__/proposer-input.ts";
import { PLAYBOOK } from "./playbook.ts";
import { RuleBasedProposer } from "./rule-based-proposer.ts";

const proposer = new RuleBasedProposer({ lockedEvaluation: LOCKED });

function recipeWith(edit: (r: Recipe) => void): Recipe {
  const r = defaultRecipe();
  edit(r);
  return r;
}
// A naive swe/code reward: visible tests pay as much as the hidden, verified ones.
const testsPaid = recipeWith((r) => {
  r.reward.components = { correctness: { weight: 1 }, tests_pass: { weight: 1 }, format: { weight: 0 } };
});

interface Case {
  rule: string;
  findings: FindingSpec[];
  metrics?: Partial<BranchMetrics>;
  recipe?: Recipe;
  /** [change id, factor, patch] of every proposal, in order. */
  expected: [string, string, unknown][];
}

const tamper = labelled("test_tampering", 0.3);
const leak = labelled("git_history_leak", 0.2);
const hardcoded = labelled("hardcoded_output", 0.25);
const CASES: Case[] = [
  {
    rule: "validity/test-tampering",
    findings: [{ source: "validity-violations", counts: { test_tampering: 30, empty_patch: 10 } }, tamper.finding],
    metrics: tamper.metrics,
    recipe: testsPaid,
    expected: [
      ["env-readOnlyTests", "env.readOnlyTests", [{ op: "replace", path: "/env/readOnlyTests", value: true }]],
      ["test-tampering-penalty", "reward.components.test_tampering.weight", [{ op: "add", path: "/reward/components/test_tampering", value: { weight: -1 } }]],
      ["drop-tests-pass", "reward.components.tests_pass.weight", [{ op: "replace", path: "/reward/components/tests_pass/weight", value: 0 }]],
    ],
  },
  {
    rule: "validity/git-history-leak",
    findings: [{ source: "validity-violations", counts: { git_history_leak: 20 } }, leak.finding],
    metrics: leak.metrics,
    expected: [
      ["env-clearGitHistory", "env.clearGitHistory", [{ op: "replace", path: "/env/clearGitHistory", value: true }]],
      ["git-history-leak-penalty", "reward.components.git_history_leak.weight", [{ op: "add", path: "/reward/components/git_history_leak", value: { weight: -1 } }]],
    ],
  },
  {
    rule: "validity/hardcoded-output",
    findings: [{ source: "validity-violations", counts: { hardcoded_output: 25 } }, hardcoded.finding],
    metrics: hardcoded.metrics,
    recipe: testsPaid,
    expected: [["drop-tests-pass", "reward.components.tests_pass.weight", [{ op: "replace", path: "/reward/components/tests_pass/weight", value: 0 }]]],
  },
  {
    rule: "signal/dead-groups",
    findings: [{ source: "dead-groups-crit" }],
    metrics: { dead_group_ratio: 0.6 },
    expected: [
      ["dynamic-sampling", "data.dynamicSampling", [{ op: "replace", path: "/data/dynamicSampling/enabled", value: true }]],
      ["larger-group", "algo.groupSize", [{ op: "replace", path: "/algo/groupSize", value: 16 }]],
      ["curriculum", "data.curriculum", [{ op: "replace", path: "/data/curriculum", value: { enabled: true, minPassRate: 0.05, maxPassRate: 0.95 } }]],
    ],
  },
  {
    rule: "signal/entropy-collapse",
    findings: [{ source: "entropy-collapse" }],
    metrics: { trainer: { entropy: 0.01 } },
    expected: [
      ["clip-higher", "algo.clip.high", [{ op: "replace", path: "/algo/clip/high", value: 0.36 }]],
      ["lower-lr", "algo.lr", [{ op: "replace", path: "/algo/lr", value: 5e-7 }]],
      ["entropy-bonus", "algo.entropyCoef", [{ op: "replace", path: "/algo/entropyCoef", value: 0.001 }]],
    ],
  },
  {
    rule: "behaviour/truncation",
    findings: [{ source: "truncation-crit" }],
    metrics: { truncation_rate: 0.6 },
    expected: [
      ["overlong-shaping", "reward.overlong", [{ op: "replace", path: "/reward/overlong", value: { enabled: true, bufferTokens: 512, penalty: 1 } }]],
      ["larger-token-budget", "algo.maxResponseTokens", [{ op: "replace", path: "/algo/maxResponseTokens", value: 8192 }]],
    ],
  },
  {
    rule: "signal/length-hacking",
    findings: [{ source: "length-hacking" }],
    metrics: { length_reward_corr: 0.7 },
    expected: [["overlong-shaping", "reward.overlong", [{ op: "replace", path: "/reward/overlong", value: { enabled: true, bufferTokens: 512, penalty: 1 } }]]],
  },
  {
    rule: "score/reward-flat",
    findings: [{ source: "reward-flat" }],
    metrics: { rollouts: 64, reward_std: 0 },
    expected: [
      ["dynamic-sampling", "data.dynamicSampling", [{ op: "replace", path: "/data/dynamicSampling/enabled", value: true }]],
      ["hotter-sampling", "algo.temperature", [{ op: "replace", path: "/algo/temperature", value: 1.2 }]],
    ],
  },
  {
    rule: "behaviour/format-error",
    findings: [labelled("format_error", 0.4).finding],
    metrics: labelled("format_error", 0.4).metrics,
    expected: [["format-weight", "reward.components.format.weight", [{ op: "replace", path: "/reward/components/format/weight", value: 0.2 }]]],
  },
  {
    rule: "behaviour/empty-patch",
    findings: [labelled("empty_patch", 0.3).finding],
    metrics: labelled("empty_patch", 0.3).metrics,
    expected: [["format-weight", "reward.components.format.weight", [{ op: "replace", path: "/reward/components/format/weight", value: 0.2 }]]],
  },
  {
    rule: "behaviour/repetition-loop",
    findings: [labelled("repetition_loop", 0.2).finding],
    metrics: labelled("repetition_loop", 0.2).metrics,
    expected: [
      ["overlong-shaping", "reward.overlong", [{ op: "replace", path: "/reward/overlong", value: { enabled: true, bufferTokens: 512, penalty: 1 } }]],
      ["entropy-bonus", "algo.entropyCoef", [{ op: "replace", path: "/algo/entropyCoef", value: 0.001 }]],
    ],
  },
  {
    rule: "behaviour/echo-loop",
    findings: [labelled("echo_loop", 0.2).finding],
    metrics: labelled("echo_loop", 0.2).metrics,
    expected: [["overlong-shaping", "reward.overlong", [{ op: "replace", path: "/reward/overlong", value: { enabled: true, bufferTokens: 512, penalty: 1 } }]]],
  },
];

describe("the playbook", () => {
  it("has a case below for every rule", () => {
    expect(CASES.map((c) => c.rule).sort()).toEqual(PLAYBOOK.map((r) => r.id).sort());
  });

  for (const c of CASES) {
    it(`${c.rule}: proposes its changes, each a valid single-factor intervention`, async () => {
      const recipe = c.recipe ?? defaultRecipe();
      const out = await proposer.propose(input({ recipe, report: report(c.findings, c.metrics) }));
      expect(out.map((i) => [i.provenance.ref, i.factor, i.patch])).toEqual(c.expected.map(([id, f, p]) => [`${c.rule}/${id}`, f, p]));
      for (const i of out) {
        expect(interventionSchema.parse(i)).toEqual(i);
        expect(i.provenance.kind).toBe("rule");
        expect(i.hypothesis).toMatch(/^if .+ then .+ because .+/);
        expect(applyIntervention(recipe, i, LOCKED)).toMatchObject({ ok: true, factor: i.factor });
      }
    });
  }

  it("skips changes already in the recipe and rules whose label the finding does not count", async () => {
    const on = recipeWith((r) => {
      r.data.dynamicSampling.enabled = true;
      r.algo.groupSize = 64;
    });
    const dead = await proposer.propose(input({ recipe: on, report: report([{ source: "dead-groups-crit" }], { dead_group_ratio: 0.6 }) }));
    expect(dead.map((i) => i.factor)).toEqual(["data.curriculum"]);

    // validity-violations counts only git history leaks: no tampering changes.
    const leakOnly = await proposer.propose(input({ report: report([{ source: "validity-violations", counts: { git_history_leak: 5 } }], leak.metrics) }));
    expect(leakOnly.map((i) => i.provenance.ref!.split("/").slice(0, 2).join("/"))).toEqual(["validity/git-history-leak", "validity/git-history-leak"]);
    // A label below its rule's minimum rate calls for nothing.
    const rare = labelled("format_error", 0.01);
    expect(await proposer.propose(input({ report: report([rare.finding], rare.metrics) }))).toEqual([]);
  });
});
