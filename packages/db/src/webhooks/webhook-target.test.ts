import { describe, expect, it } from "vitest";
import { parseAllowedCidrs } from "@evotrainer/core";
import { webhookTarget, type ResolveHost } from "./webhook-target.ts";

// A resolver whose answers the test chooses: names that point inside, and one that points both ways.
const answers: Record<string, string[]> = {
  "public.example": ["93.184.216.34"],
  "public6.example": ["2606:4700:4700::1111"],
  "loopback.example": ["127.0.0.1"],
  "loopback6.example": ["::1"],
  "mapped.example": ["::ffff:127.0.0.1"],
  "metadata.example": ["169.254.169.254"],
  "private.example": ["10.1.2.3"],
  "split.example": ["93.184.216.34", "192.168.1.1"],
  "cgnat.example": ["100.64.0.1"],
  "onprem.example": ["10.20.30.40"],
};
const resolve: ResolveHost = async (hostname) => {
  const found = answers[hostname];
  if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
  return found.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
};

const check = (url: string, allow = "") => webhookTarget(url, { allowed: parseAllowedCidrs(allow), resolve });

describe("webhook address guard", () => {
  const refused: [string, RegExp][] = [
    ["http://127.0.0.1:3000/api/health", /loopback/],
    ["http://127.1.2.3/", /loopback/],
    ["http://2130706433/", /written as a number/],
    ["http://0x7f000001/", /written as a number/],
    ["http://0177.0.0.1/", /written as a number/],
    ["http://0x7f.0.0.1/", /written as a number/],
    ["http://127.1/", /written as a number/],
    ["http://017700000001/", /written as a number/],
    ["http://0/", /written as a number/],
    ["http://0.0.0.0:6379/", /unspecified/],
    ["http://10.0.0.5/", /private/],
    ["http://172.16.0.1/", /private/],
    ["http://172.31.255.255/", /private/],
    ["http://192.168.1.1/", /private/],
    ["http://169.254.169.254/latest/meta-data/", /link-local/],
    ["http://100.64.0.1/", /carrier-grade NAT/],
    ["http://100.127.255.254/", /carrier-grade NAT/],
    ["http://224.0.0.1/", /multicast/],
    ["http://239.255.255.250/", /multicast/],
    ["http://255.255.255.255/", /reserved or broadcast/],
    ["http://[::1]:5432/", /loopback/],
    ["http://[::]/", /unspecified/],
    ["http://[::ffff:127.0.0.1]/", /IPv4-mapped/],
    ["http://[::ffff:7f00:1]/", /IPv4-mapped/],
    ["http://[::ffff:8.8.8.8]/", /IPv4-mapped/],
    ["http://[::127.0.0.1]/", /IPv4-compatible/],
    ["http://[64:ff9b::7f00:1]/", /NAT64/],
    ["http://[fe80::1]/", /link-local/],
    ["http://[fc00::1]/", /unique-local/],
    ["http://[fd12:3456::1]/", /unique-local/],
    ["http://[ff02::1]/", /multicast/],
    ["http://[2002:7f00:1::]/", /6to4/],
    ["http://loopback.example/", /loopback.example resolves to 127.0.0.1 is a loopback/],
    ["http://loopback6.example/", /loopback/],
    ["http://mapped.example/", /IPv4-mapped/],
    ["http://metadata.example/", /link-local/],
    ["http://private.example/", /private/],
    ["http://cgnat.example/", /carrier-grade NAT/],
    ["http://split.example/", /split.example resolves to 192.168.1.1 is a private/],
    ["http://nowhere.example/", /does not resolve/],
    ["ftp://93.184.216.34/", /http:\/\/ or https:\/\//],
    ["http://user:pass@93.184.216.34/", /no user name or password/],
    ["not a url", /not a valid address/],
  ];

  it.each(refused)("refuses %s", async (url, why) => {
    const target = await check(url);
    expect(target.outcome).toBe("refused");
    expect(target.outcome === "refused" && target.message).toMatch(why);
  });

  const allowed: [string, string][] = [
    ["https://93.184.216.34/hook", "93.184.216.34"],
    ["https://public.example/hook", "93.184.216.34"],
    ["https://public6.example/hook", "2606:4700:4700::1111"],
    ["https://[2606:4700:4700::1111]/hook", "2606:4700:4700::1111"],
    ["https://172.32.0.1/", "172.32.0.1"],
    ["https://100.128.0.1/", "100.128.0.1"],
  ];

  it.each(allowed)("allows the public %s and connects to %s", async (url, address) => {
    expect(await check(url)).toMatchObject({ outcome: "allowed", address });
  });

  it("lets EVO_WEBHOOK_ALLOW_CIDRS open on-premises ranges, and only those", async () => {
    const allow = "10.20.0.0/16, fd00::/8, 127.0.0.5";
    expect(await check("http://onprem.example/", allow)).toMatchObject({ outcome: "allowed", address: "10.20.30.40" });
    expect(await check("http://[fd00::7]/", allow)).toMatchObject({ outcome: "allowed" });
    expect(await check("http://127.0.0.5:8080/", allow)).toMatchObject({ outcome: "allowed", address: "127.0.0.5" });
    expect((await check("http://127.0.0.1/", allow)).outcome).toBe("refused");
    expect((await check("http://private.example/", allow)).outcome).toBe("refused");
    // A number form stays refused even inside an allowed range: it is never how a receiver is named.
    expect((await check("http://2130706437/", allow)).outcome).toBe("refused");
    expect(() => parseAllowedCidrs("10.0.0.0/33")).toThrow(/EVO_WEBHOOK_ALLOW_CIDRS: "10.0.0.0\/33"/);
    expect(() => parseAllowedCidrs("intranet")).toThrow(/not an address range/);
  });
});
