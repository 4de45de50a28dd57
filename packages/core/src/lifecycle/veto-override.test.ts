import { describe, expect, it } from "vitest";
import { admitVetoOverride } from "./veto-override.ts";

const policyVeto = { id: "d1", kind: "veto", actor: "policy" } as const;

describe("admitVetoOverride", () => {
  it("admits overriding the policy's veto of a rejected branch while the run goes on", () => {
    expect(admitVetoOverride({ isBase: false, status: "rejected", runStatus: "running", completionDecisions: [policyVeto] })).toEqual({ outcome: "admitted", overriddenDecisionId: "d1", next: "promoted" });
  });

  it("refuses a person's veto, an override already made, and a branch the gate did not reject", () => {
    expect(admitVetoOverride({ isBase: false, status: "vetoed", runStatus: "running", completionDecisions: [{ id: "d", kind: "veto", actor: "human" }] })).toMatchObject({ reason: "not_policy_veto" });
    expect(admitVetoOverride({ isBase: false, status: "rejected", runStatus: "running", completionDecisions: [policyVeto, { id: "d2", kind: "approve", actor: "human" }] })).toMatchObject({ reason: "not_policy_veto" });
    expect(admitVetoOverride({ isBase: false, status: "promoted", runStatus: "running", completionDecisions: [] })).toMatchObject({ reason: "not_policy_veto" });
  });

  it("refuses the base branch, which is the run's reference rather than a candidate", () => {
    expect(admitVetoOverride({ isBase: true, status: "rejected", runStatus: "running", completionDecisions: [policyVeto] })).toMatchObject({ outcome: "refused", reason: "base_branch" });
  });

  it("refuses once the run is finishing or over", () => {
    for (const runStatus of ["finishing", "completed", "failed", "cancelled"] as const) {
      expect(admitVetoOverride({ isBase: false, status: "rejected", runStatus, completionDecisions: [policyVeto] })).toMatchObject({ outcome: "refused", reason: "run_finished" });
    }
  });
});
