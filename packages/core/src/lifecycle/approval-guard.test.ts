import { describe, expect, it } from "vitest";
import { admitApproval } from "./approval-guard.ts";

const checks = [
  { name: "main_score_vs_parent", passed: true },
  { name: "validity_limit", passed: false },
  { name: "main_score_vs_best", passed: false, blocking: false },
  { name: "no_new_crit", passed: false },
];

describe("admitApproval", () => {
  it("admits a plain approval of a passed verdict, or of a branch with none", () => {
    expect(admitApproval({ checks: [{ name: "no_new_crit", passed: true }], approveAnyway: false, reason: "" })).toEqual({ outcome: "admitted", override: null });
    expect(admitApproval({ checks: null, approveAnyway: false, reason: "" })).toEqual({ outcome: "admitted", override: null });
  });

  it("refuses approving a failed verdict without the override and a reason, naming the blocking checks", () => {
    for (const attempt of [{ approveAnyway: false, reason: "fine" }, { approveAnyway: true, reason: "  " }]) {
      expect(admitApproval({ checks, ...attempt })).toMatchObject({ outcome: "refused", failedChecks: ["validity_limit", "no_new_crit"], message: expect.stringContaining("2 check(s)") });
    }
  });

  it("admits the override with a reason, recording what it overrode", () => {
    expect(admitApproval({ checks, approveAnyway: true, reason: "0.002 over a 0.05 limit is noise" })).toEqual({
      outcome: "admitted",
      override: { kind: "failed_verdict", failedChecks: ["validity_limit", "no_new_crit"] },
    });
  });
});
