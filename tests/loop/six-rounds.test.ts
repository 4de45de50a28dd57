// Issue 4's acceptance: core + gym + rule-based proposer drive the whole method in memory (no
// database, no queue, no files), for swe over six rounds and for math and code over fewer.
import { beforeAll, describe, expect, it } from "vitest";
import { branchTable } from "./branch-table.ts";
import { runLoopInMemory, type LoopBranch, type LoopHistory } from "./in-memory-loop.ts";
import { loadRunConfig } from "./run-config.ts";

// The example configs as `evotrainer run` reads them, shrunk for a unit test: fewer prompts per step
// (the gym's adapter knob, not a recipe factor) and, for math and code, fewer steps and rounds.
// swe keeps the example's 30 steps and 16 prompts per step, trains one child per round (B = 1, so
// the proposals a round does not keep come back in the next one) and runs six rounds.
const SWE_ROUNDS = 6;
const TAMPERING_FIXES = ["env.readOnlyTests", "reward.components.test_tampering.weight"];

const promotedFactors = (h: LoopHistory) => new Set(h.branches.filter((b) => b.parentId && b.status === "promoted").map((b) => b.intervention!.factor));
const failedCheck = (b: LoopBranch, name: string) => b.verdict.checks.filter((c) => c.name === name && !c.passed);
const metric = (b: LoopBranch, key: string) => b.steps.slice(-3).reduce((s, m) => s + m[key]!, 0) / 3;

function logRun(h: LoopHistory): void {
  const harness = h.harnessVersions
    .filter((v) => v.registration)
    .map((v) =>
      v.registration!.added.map((a) => {
        const sep = a.evidence.separation!;
        return `harness v${v.version} (round ${v.round}): + ${a.detectorId} — rejected ${sep.rejectedMean.toFixed(3)} vs promoted ${sep.promotedMean.toFixed(3)}, AUC ${sep.auc.toFixed(3)}; rule ${a.healthRuleId ?? "-"}`;
      }),
    )
    .flat();
  const skills = h.skills.map((s) => `skill ${s.name} [${s.domains.join(",")}] ${s.successes}✓ ${s.failures}✗ trigger ${s.trigger}`);
  const retrieved = h.rounds.flatMap((r) => r.retrieved.map((x) => `round ${r.round} retrieved ${x.name} (${x.sameDomain ? "same domain" : "other domain"})`));
  console.log([branchTable(h), ...harness, ...retrieved, ...skills].join("\n"));
}

let swe: LoopHistory;
let later: LoopHistory;
let math: LoopHistory;
let code: LoopHistory;

beforeAll(async () => {
  const config = loadRunConfig("examples/gym-swe.yaml", (c) => {
    c.budget.rounds = SWE_ROUNDS;
    c.budget.branches = SWE_ROUNDS;
    c.search.keep = 1;
  });
  swe = await runLoopInMemory({ config, runId: "run-swe", adapter: { tasksPerStep: 16 } });
  // A later swe run of the same organization (another seed) starts from the library the first one
  // left: skills are retrieved by trigger, this domain's first.
  const again = loadRunConfig("examples/gym-swe.yaml", (c) => {
    c.budget.rounds = 1;
    c.budget.branches = 1;
    c.search.keep = 1;
    c.seed = 2;
  });
  later = await runLoopInMemory({ config: again, runId: "run-swe-later", adapter: { tasksPerStep: 16 }, skills: swe.skills });
  // Math and code, shorter, each with the organization's library as the previous run left it.
  const shorter = (domain: "math" | "code") =>
    loadRunConfig(`examples/gym-${domain}.yaml`, (c) => {
      c.budget.rounds = 3;
      c.budget.branches = 6;
      c.search.stepsPerBranch = 20;
    });
  math = await runLoopInMemory({ config: shorter("math"), runId: "run-math", adapter: { tasksPerStep: 8 }, skills: swe.skills });
  code = await runLoopInMemory({ config: shorter("code"), runId: "run-code", adapter: { tasksPerStep: 8 }, skills: math.skills });
  for (const h of [swe, later, math, code]) logRun(h);
}, 120_000);

describe("the loop in memory: swe over six rounds", () => {
  it("runs at least six rounds, each training a child from the best-so-far branch's policy", () => {
    const trained = swe.rounds.filter((r) => r.children.length > 0);
    // Five at least: the proposer no longer aims a factor at a label it already failed to move, so
    // the run may end a round early with nothing new to try (the loop logs why it finished).
    expect(trained.length).toBeGreaterThanOrEqual(5);
    for (const r of trained) {
      for (const id of r.children) expect(swe.branches.find((b) => b.id === id)!.parentId).toBe(r.frontierId);
    }
    // Every child was backtested on its parent's rollouts and was the round's top-ranked proposal.
    for (const b of swe.branches.filter((x) => x.parentId)) expect(b.rank).toBe(1);
  });

  it("the hacked base branch has the highest training reward and is blocked by validity labels", () => {
    const [v0, ...children] = swe.branches;
    for (const b of children) expect(b.trainReward, b.id).toBeLessThan(v0!.trainReward);
    // Also on one yardstick: the base recipe's reward on every branch's final training rollouts.
    for (const b of children) expect(b.baseReward, b.id).toBeLessThan(v0!.baseReward);
    expect(v0!.report.metrics.label_rate["test_tampering"]).toBeGreaterThan(0.5);
    expect(failedCheck(v0!, "validity_limit").map((c) => c.numbers["label"])).toContain("test_tampering");
    expect(v0!.decision.kind).toBe("veto");
    expect(v0!.status).toBe("rejected");
    // Hacking does not pay on the locked grader: every promoted branch scores far above it.
    const promoted = children.filter((b) => b.status === "promoted");
    expect(promoted.length).toBeGreaterThan(0);
    for (const b of promoted) expect(b.score).toBeGreaterThan(v0!.score + 0.3);
    // No branch over a validity limit is ever promoted.
    for (const b of swe.branches) if (failedCheck(b, "validity_limit").length > 0) expect(b.status, b.id).toBe("rejected");
  });

  it("promotes an intervention whose bootstrap interval on the promotion split excludes zero", () => {
    const proven = swe.branches.filter((b) => b.parentId && b.status === "promoted" && b.verdict.vsParent.ci[0] > 0);
    expect(proven.length).toBeGreaterThan(0);
    // The tampering is fixed by hardening the env or by penalising the tampering label, whichever the round kept.
    const hardening = proven.find((b) => TAMPERING_FIXES.includes(b.intervention!.factor))!;
    expect(hardening.parentId).toBe("v0");
    expect(hardening.verdict.vsParent.tasks).toBe(64);
    expect(hardening.verdict.vsParent.ci[0]).toBeGreaterThan(0.3);
    expect(hardening.verdict.checks.every((c) => c.passed || c.blocking === false)).toBe(true);
    expect(swe.sealed.score).toBeGreaterThan(swe.branches[0]!.score + 0.5);
  });

  it("creates skills from verified successes and retrieves them later, this domain's first", () => {
    const created = swe.skillEvents.filter((e) => e.created);
    expect(created.length).toBeGreaterThan(0);
    for (const e of created) {
      const branch = swe.branches.find((b) => b.id === e.branchId)!;
      expect(branch.status).toBe("promoted");
      expect(e.created!.evidence[0]).toMatchObject({ branchId: branch.id, ci: branch.verdict.vsParent.ci });
    }
    const ids = new Set(created.map((e) => e.created!.id));
    const hardening = created.find((e) => TAMPERING_FIXES.includes(e.created!.template.factor))!.created!;
    // The later run's hacked base shows the same symptom: the skill fires and becomes a proposal.
    const first = later.rounds[0]!;
    expect(first.retrieved.filter((r) => ids.has(r.skillId)).every((r) => r.sameDomain)).toBe(true);
    expect(first.retrieved.map((r) => r.skillId)).toContain(hardening.id);
    expect(first.proposals.some((p) => p.provenance.kind === "skill" && p.provenance.ref === hardening.id)).toBe(true);
  });

  it("backtests dynamic sampling to drop and resample the dead groups, and training confirms the direction", () => {
    const dynamic = swe.branches.filter((b) => b.intervention?.factor === "data.dynamicSampling");
    expect(dynamic.length).toBeGreaterThan(0);
    for (const b of dynamic) {
      const parent = swe.branches.find((p) => p.id === b.parentId)!;
      const bt = b.backtest!;
      // Predicted on the parent's rollouts: every dead group leaves the batch, to be replaced.
      expect(bt.deadGroups.before).toBeGreaterThan(0);
      expect(bt.deadGroups.after).toBe(0);
      expect(bt.deadGroups.filteredOut.after - bt.deadGroups.filteredOut.before).toBe(bt.deadGroups.before);
      expect(bt.predicted).toMatchObject({ metric: "dead_group_ratio", direction: "down", agreesWithExpectation: true });
      // Trained: dead groups were still drawn and dropped, and the batch's dead-group ratio fell.
      expect(metric(b, "train/sampled_dead_group_ratio")).toBeGreaterThan(0.1);
      expect(metric(b, "train/filtered_groups")).toBeGreaterThan(0);
      expect(b.report.metrics.dead_group_ratio).toBeLessThan(parent.report.metrics.dead_group_ratio);
      expect(b.verdict.checks.find((c) => c.name === "targeted_metric")!.passed).toBe(true);
    }
    // Rescued: resampling put more live groups in each batch than one draw at the same dead rate
    // gives (16 × (1 − sampled dead ratio)); on the promoted branch that paid off on the locked grader.
    const promoted = dynamic.filter((b) => b.status === "promoted");
    expect(promoted.length).toBeGreaterThan(0);
    for (const b of promoted) {
      const perStep = b.steps.map((m) => m["train/groups"]! - 16 * (1 - m["train/sampled_dead_group_ratio"]!));
      const rescued = perStep.reduce((x, y) => x + y, 0) / perStep.length;
      console.log(`${b.id}: backtest drops ${b.backtest!.deadGroups.before} dead groups of ${b.backtest!.groups}; training rescued ${rescued.toFixed(2)} live groups per step`);
      expect(rescued).toBeGreaterThan(1);
      expect(b.verdict.vsParent.ci[0]).toBeGreaterThan(0);
    }
  });

  // The run starts from the full swe catalog (harness v1, as create-run.ts registers it): a gap shows
  // without removing any detector, since once the hack is fixed most failed episodes (wrong edits)
  // carry no explaining label. The candidate that separates is reward_test_mismatch (rewarded while
  // the hidden tests fail): high on the hacked branches, zero on the promoted ones.
  it("registers a detector only on evidence that passes every admission rule, and names the rule that refused each other one", () => {
    const checks = swe.rounds.map((r) => r.harnessCheck).filter((c) => c.gap.gap);
    expect(checks.length).toBeGreaterThan(0);
    for (const c of checks) expect(c.gap.reasons.length).toBeGreaterThan(0);
    // Six rounds with one child each leave too few promoted and rejected branches for a permutation
    // test at 0.05 (3 per side at least): what the harness check replayed is refused, rule named.
    const refusals = checks.flatMap((c) => c.validations.filter((v) => !v.accepted));
    expect(refusals.length).toBeGreaterThan(0);
    for (const v of refusals) {
      expect(v.refusedBy.length, v.detectorId).toBeGreaterThan(0);
      for (const rule of v.refusedBy) expect(v.reasons.some((r) => r.startsWith(`${rule}:`)), `${v.detectorId} ${rule}`).toBe(true);
    }
    // Whatever was registered met every rule, with the test's numbers stored.
    for (const version of swe.harnessVersions.filter((v) => v.registration)) {
      for (const added of version.registration!.added) {
        expect(added.evidence.branchTest!.p).toBeLessThanOrEqual(0.05);
        expect(added.evidence.rolloutTest!.p).toBeLessThanOrEqual(0.05);
        expect(added.evidence.firing.overall).toBeLessThan(0.9);
      }
    }
  });
});

describe("the loop in memory: math and code, shorter", () => {
  it("keeps different interventions in different domains", () => {
    const kept = { swe: promotedFactors(swe), math: promotedFactors(math), code: promotedFactors(code) };
    console.log(Object.entries(kept).map(([d, f]) => `${d} keeps ${[...f].join(", ")}`).join("\n"));
    for (const f of Object.values(kept)) expect(f.size).toBeGreaterThan(0);
    const same = (a: Set<string>, b: Set<string>) => a.size === b.size && [...a].every((x) => b.has(x));
    expect(same(kept.swe, kept.math)).toBe(false);
    expect(same(kept.swe, kept.code)).toBe(false);
    expect(same(kept.math, kept.code)).toBe(false);
    // Each hacked domain is fixed its own way: swe hardens the sandbox or penalises tampering, code
    // drops the reward that hard-coded outputs game; neither fix shows up in another domain.
    const sweFix = [...kept.swe].filter((f) => f.startsWith("env.") || f === "reward.components.test_tampering.weight");
    expect(sweFix.length).toBeGreaterThan(0);
    expect(kept.code.has("reward.components.tests_pass.weight")).toBe(true);
    for (const f of sweFix) expect(kept.math.has(f) || kept.code.has(f)).toBe(false);
    expect(kept.swe.has("reward.components.tests_pass.weight") || kept.math.has("reward.components.tests_pass.weight")).toBe(false);
  });

  it("blocks the hack of each domain that has one, and lets math's base stand on its own checks", () => {
    expect(failedCheck(swe.branches[0]!, "validity_limit").map((c) => c.numbers["label"])).toContain("test_tampering");
    expect(failedCheck(code.branches[0]!, "validity_limit").map((c) => c.numbers["label"])).toContain("hardcoded_output");
    expect(failedCheck(math.branches[0]!, "validity_limit")).toEqual([]);
    for (const h of [swe, math, code]) expect(h.branches.some((b) => b.parentId && b.status === "promoted" && b.verdict.vsParent.ci[0] > 0)).toBe(true);
  });

  it("falls back to another domain's skill when this domain has none for the symptom", () => {
    const borrowed = code.rounds.flatMap((r) => r.retrieved.filter((x) => !x.sameDomain));
    expect(borrowed.length).toBeGreaterThan(0);
    const skill = code.skills.find((s) => s.id === borrowed[0]!.skillId)!;
    expect(skill.domains[0]).not.toBe("code");
  });
});
