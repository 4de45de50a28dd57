import { describe, expect, it } from "vitest";
import { admitPasswordAttempt, PASSWORD_LIMITS, type PasswordFailure } from "./password-attempts.ts";
import { clientKey } from "./client-key.ts";

const now = 1_000_000_000;
const fails = (client: string, count: number, door: PasswordFailure["door"] = "sign-in", at = now - 1000): PasswordFailure[] =>
  Array.from({ length: count }, (_, i) => ({ client, door, at: at + i }));
const admit = (failures: PasswordFailure[], client: string, door: PasswordFailure["door"] = "sign-in", knownClients: string[] = []) =>
  admitPasswordAttempt({ failures, knownClients, client, door, now });

describe("admitPasswordAttempt", () => {
  it("holds back the client that sent its allowance of wrong passwords, and no other", () => {
    const stranger = fails("198.51.100.7", PASSWORD_LIMITS.perClient);
    expect(admit(stranger.slice(1), "198.51.100.7")).toEqual({ outcome: "allowed" });
    expect(admit(stranger, "198.51.100.7")).toMatchObject({ outcome: "refused", underAttack: true });
    // The owner, on a device that has never failed, even one never seen before.
    expect(admit(stranger, "203.0.113.1")).toEqual({ outcome: "allowed" });
  });

  it("gives unknown clients a smaller allowance while the account is under attack; a known client keeps its full one", () => {
    const spread = Array.from({ length: 20 }, (_, i) => fails(`198.51.100.${i}`, 1)).flat();
    const unknown = fails("203.0.113.9", PASSWORD_LIMITS.perClientUnderAttack);
    expect(admit([...spread, ...unknown], "203.0.113.9")).toMatchObject({ outcome: "refused", underAttack: true });
    expect(admit([...spread, ...unknown], "203.0.113.9", "sign-in", ["203.0.113.9"])).toEqual({ outcome: "allowed" });
    expect(admit(spread, "203.0.113.10")).toEqual({ outcome: "allowed" });
  });

  it("never counts an invitation's wrong passwords at sign-in, but holds the client back at the invitation", () => {
    const viaInvitation = fails("198.51.100.7", 50, "invitation");
    expect(admit(viaInvitation, "198.51.100.7", "sign-in")).toEqual({ outcome: "allowed" });
    expect(admit(viaInvitation, "203.0.113.1", "sign-in")).toEqual({ outcome: "allowed" });
    expect(admit(viaInvitation, "198.51.100.7", "invitation")).toMatchObject({ outcome: "refused" });
    // Held back at sign-in means held back at the invitation too.
    expect(admit(fails("198.51.100.8", PASSWORD_LIMITS.perClient), "198.51.100.8", "invitation")).toMatchObject({ outcome: "refused" });
  });

  it("forgets failures older than the window, and says when the client may try again", () => {
    const windowMs = PASSWORD_LIMITS.windowSeconds * 1000;
    expect(admit(fails("198.51.100.7", 30, "sign-in", now - windowMs - 100), "198.51.100.7")).toEqual({ outcome: "allowed" });
    const recent = fails("198.51.100.7", PASSWORD_LIMITS.perClient, "sign-in", now - windowMs + 60_000);
    // A known client waits for its oldest failure to leave the window, in 60 s: then it is one under its allowance.
    expect(admit(recent, "198.51.100.7", "sign-in", ["198.51.100.7"])).toEqual({ outcome: "refused", retryAfterSeconds: 60, underAttack: true });
    // An unknown one, now that the account is under attack, until all but the smaller allowance have left.
    const waitsFor = Math.ceil((recent.at(-PASSWORD_LIMITS.perClientUnderAttack)!.at + windowMs - now) / 1000);
    expect(admit(recent, "198.51.100.7")).toEqual({ outcome: "refused", retryAfterSeconds: waitsFor, underAttack: true });
  });
});

describe("clientKey", () => {
  it("keeps an IPv4 address as it is and counts an IPv6 address by its /64", () => {
    expect(clientKey("203.0.113.9")).toBe("203.0.113.9");
    expect(clientKey("2001:db8:1:2:aaaa::1")).toBe("2001:db8:1:2::/64");
    expect(clientKey("2001:DB8:1:2:ffff:ffff:ffff:ffff")).toBe("2001:db8:1:2::/64");
    expect(clientKey("fe80::1%eth0")).toBe("fe80:0:0:0::/64");
    expect(clientKey("")).toBe("unknown");
  });
});
