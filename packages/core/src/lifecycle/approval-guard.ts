/** A verdict check as stored: only its name, outcome and whether it blocks promotion matter here. */
export interface StoredCheck {
  name: string;
  passed: boolean;
  blocking?: boolean;
  detail?: string;
}

export type ApprovalAdmission =
  | { outcome: "admitted"; override: null }
  | { outcome: "admitted"; override: { kind: "failed_verdict"; failedChecks: string[] } }
  | { outcome: "refused"; reason: "override_needs_reason"; failedChecks: string[]; message: string };

/**
 * Whether a person's approval may stand against the branch's verdict. Approving a branch whose gate
 * failed is allowed, but only as a stated override: the caller says "approve anyway" and gives the
 * reason, which the audit keeps with the checks it overrode.
 */
export function admitApproval(input: { checks: readonly StoredCheck[] | null; approveAnyway: boolean; reason: string }): ApprovalAdmission {
  const failedChecks = (input.checks ?? []).filter((c) => !c.passed && c.blocking !== false).map((c) => c.name);
  if (failedChecks.length === 0) return { outcome: "admitted", override: null };
  if (!input.approveAnyway || input.reason.trim() === "") {
    return {
      outcome: "refused",
      reason: "override_needs_reason",
      failedChecks,
      message: `the verdict failed ${failedChecks.length} check(s): ${failedChecks.join(", ")}; to approve anyway, confirm the override and give the reason`,
    };
  }
  return { outcome: "admitted", override: { kind: "failed_verdict", failedChecks } };
}
