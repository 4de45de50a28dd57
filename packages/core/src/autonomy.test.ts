import { describe, expect, it } from "vitest";
import { autonomyPolicySchema, consecutiveFailures, gateFor, policyDecision, type BranchOutcome } from "./autonomy.ts";
import { decisionSchema, type Decision } from "./decision.ts";
import type { Verdict } from "./verdict.ts";

const trusted = { consecutiveFailedBranches: 0, finishedBranchesInDomain: 10 };
const veto: Decision = { kind: "veto", stage: "completion", actor: { kind: "human", userId: "u1" }, reason: "reward hacking" };
const approve: Decision = { kind: "approve", stage: "completion", actor: { kind: "policy" } };

describe("autonomy policy", () => {
  it("applies defaults: escalate after 2 failures, gate the first 3 branches of a domain", () => {
    const p = autonomyPolicySchema.parse({ mode: "full" });
    expect(p).toMatchObject({ escalateAfterFailures: 2, gateFirstBranchesPerDomain: 3 });
    expect(gateFor(p, "completion", trusted)).toEqual({ gated: false, reasons: [] });
  });

  it("gates every stage in human_gated mode and only the chosen stages in full mode", () => {
    const human = autonomyPolicySchema.parse({ mode: "human_gated" });
    for (const stage of ["diagnosis", "design", "backtest", "completion"] as const) expect(gateFor(human, stage, trusted).gated).toBe(true);
    const full = autonomyPolicySchema.parse({ mode: "full", gates: { diagnosis: false, design: false, backtest: true, completion: false } });
    expect(gateFor(full, "backtest", trusted)).toEqual({ gated: true, reasons: ["the policy gates after backtest"] });
    expect(gateFor(full, "design", trusted).gated).toBe(false);
  });

  it("escalates to human gating after N consecutive failed branches and gates a domain's first K branches", () => {
    const p = autonomyPolicySchema.parse({ mode: "full" });
    expect(gateFor(p, "design", { ...trusted, consecutiveFailedBranches: 1 }).gated).toBe(false);
    expect(gateFor(p, "design", { ...trusted, consecutiveFailedBranches: 2 }).reasons[0]).toMatch(/escalated: 2 consecutive failed branches/);
    expect(gateFor(p, "completion", { ...trusted, finishedBranchesInDomain: 2 }).reasons).toEqual(["branch 3 of the domain; the first 3 are gated"]);
    expect(gateFor(p, "completion", { ...trusted, finishedBranchesInDomain: 3 }).gated).toBe(false);
  });

  it("counts consecutive failures from the end: rejected verdicts and vetoes, a person's approval resets", () => {
    const rejected: BranchOutcome = { verdict: { promote: false }, decisions: [] };
    const promoted: BranchOutcome = { verdict: { promote: true }, decisions: [] };
    const vetoed: BranchOutcome = { verdict: { promote: true }, decisions: [veto] };
    const overruled: BranchOutcome = { verdict: { promote: false }, decisions: [approve] };
    const running: BranchOutcome = { decisions: [] };
    expect(consecutiveFailures([promoted, rejected, vetoed, running])).toBe(2);
    expect(consecutiveFailures([rejected, overruled])).toBe(0);
    expect(consecutiveFailures([])).toBe(0);
  });

  it("decides on its own by the verdict, citing the failed checks when it vetoes", () => {
    const failing = {
      promote: false,
      checks: [
        { name: "main_score_vs_parent", passed: false, detail: "Δ 0.0010", numbers: {} },
        { name: "no_new_crit", passed: true, detail: "none", numbers: {} },
      ],
    } as unknown as Verdict;
    const d = policyDecision(failing);
    expect(decisionSchema.parse(d)).toEqual({ kind: "veto", stage: "completion", actor: { kind: "policy" }, reason: "main_score_vs_parent: Δ 0.0010" });
    expect(policyDecision({ ...failing, promote: true }).kind).toBe("approve");
    expect(decisionSchema.safeParse({ kind: "revise", stage: "design", actor: { kind: "policy" }, instructions: "" }).success).toBe(false);
  });
});
