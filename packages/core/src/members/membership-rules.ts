export type MemberRole = "viewer" | "approver" | "admin";

export type MembershipChange =
  | { outcome: "allowed" }
  | { outcome: "refused"; reason: "last_admin" | "not_member"; message: string };

/**
 * Whether a member's role may change or the member may leave: an organization always keeps an
 * admin, or nobody could invite, change roles or reset passwords again.
 */
export function admitMembershipChange(input: { current: MemberRole | null; next: MemberRole | null; adminCount: number }): MembershipChange {
  if (input.current === null) return { outcome: "refused", reason: "not_member", message: "this person is not a member of the organization" };
  if (input.current === "admin" && input.next !== "admin" && input.adminCount <= 1) {
    const what = input.next === null ? "removed" : `made ${input.next}`;
    return { outcome: "refused", reason: "last_admin", message: `the last admin cannot be ${what}: make another member admin first` };
  }
  return { outcome: "allowed" };
}

export type LinkAdmission = { outcome: "valid" } | { outcome: "refused"; reason: "used" | "expired"; message: string };

/** An invitation or password-reset link works once, before it expires. */
export function admitLink(input: { used: boolean; expiresAt: Date; now: Date; what: string }): LinkAdmission {
  if (input.used) return { outcome: "refused", reason: "used", message: `this ${input.what} link was already used: ask an admin for a new one` };
  if (input.expiresAt <= input.now) return { outcome: "refused", reason: "expired", message: `this ${input.what} link has expired: ask an admin for a new one` };
  return { outcome: "valid" };
}
