import { describe, expect, it } from "vitest";
import { admitLink, admitMembershipChange } from "./membership-rules.ts";

describe("admitMembershipChange", () => {
  it("refuses demoting or removing the last admin", () => {
    expect(admitMembershipChange({ current: "admin", next: "viewer", adminCount: 1 })).toMatchObject({ outcome: "refused", reason: "last_admin" });
    expect(admitMembershipChange({ current: "admin", next: null, adminCount: 1 })).toMatchObject({ outcome: "refused", reason: "last_admin", message: expect.stringContaining("removed") });
  });

  it("allows it when another admin remains, and any change of a non-admin", () => {
    expect(admitMembershipChange({ current: "admin", next: "approver", adminCount: 2 })).toEqual({ outcome: "allowed" });
    expect(admitMembershipChange({ current: "viewer", next: null, adminCount: 1 })).toEqual({ outcome: "allowed" });
    expect(admitMembershipChange({ current: "admin", next: "admin", adminCount: 1 })).toEqual({ outcome: "allowed" });
  });

  it("refuses a change for someone who is not a member", () => {
    expect(admitMembershipChange({ current: null, next: "viewer", adminCount: 3 })).toMatchObject({ outcome: "refused", reason: "not_member" });
  });
});

describe("admitLink", () => {
  const now = new Date("2026-01-02T00:00:00Z");
  it("accepts an unused link before its expiry, once", () => {
    expect(admitLink({ used: false, expiresAt: new Date("2026-01-03T00:00:00Z"), now, what: "invitation" })).toEqual({ outcome: "valid" });
    expect(admitLink({ used: true, expiresAt: new Date("2026-01-03T00:00:00Z"), now, what: "invitation" })).toMatchObject({ outcome: "refused", reason: "used" });
  });
  it("refuses an expired link", () => {
    expect(admitLink({ used: false, expiresAt: now, now, what: "password reset" })).toMatchObject({ outcome: "refused", reason: "expired", message: expect.stringContaining("password reset") });
  });
});
