import { describe, expect, it } from "vitest";
import { parseTrustedProxies, resolveForwarded } from "./forwarded";

const none = parseTrustedProxies(undefined);
const proxies = parseTrustedProxies("10.0.0.0/8, 127.0.0.2, ::1");

describe("resolveForwarded", () => {
  it("without trusted proxies, the socket peer is the client whatever the headers claim", () => {
    const headers = { host: "evo:3000", "x-forwarded-for": "203.0.113.9", "x-forwarded-proto": "https", "x-forwarded-host": "bank.example" };
    expect(resolveForwarded({ remoteAddress: "::ffff:192.0.2.4", encrypted: false, headers }, none)).toEqual({ client: "192.0.2.4", proto: "http", host: "evo:3000" });
  });

  it("behind a trusted proxy, the rightmost address the proxies do not vouch for is the client", () => {
    const headers = { host: "internal", "x-forwarded-for": "1.1.1.1, 203.0.113.9, 10.1.2.3", "x-forwarded-proto": "https", "x-forwarded-host": "evo.example" };
    expect(resolveForwarded({ remoteAddress: "10.0.0.5", encrypted: false, headers }, proxies)).toEqual({ client: "203.0.113.9", proto: "https", host: "evo.example" });
  });

  it("a peer outside the trusted list cannot forward for someone else", () => {
    const headers = { host: "evo", "x-forwarded-for": "203.0.113.9" };
    expect(resolveForwarded({ remoteAddress: "127.0.0.3", encrypted: false, headers }, proxies).client).toBe("127.0.0.3");
  });

  it("stops at a malformed hop rather than skipping past it", () => {
    const headers = { host: "evo", "x-forwarded-for": "203.0.113.9, not-an-ip" };
    expect(resolveForwarded({ remoteAddress: "::1", encrypted: false, headers }, proxies).client).toBe("::1");
  });

  it("names the bad entry of EVO_TRUSTED_PROXIES", () => {
    expect(() => parseTrustedProxies("10.0.0.0/8, proxy.local")).toThrow(/"proxy.local" is not an IP address or CIDR range/);
    expect(() => parseTrustedProxies("10.0.0.0/33")).toThrow(/10.0.0.0\/33/);
  });
});
