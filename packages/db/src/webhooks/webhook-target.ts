import { lookup as dnsLookup } from "node:dns/promises";
import { addressRefusal, parseAllowedCidrs, webhookHost, type Cidr } from "@evotrainer/core";

/** Every address a host name resolves to. Injected in tests, where a resolver of the test's own answers. */
export type ResolveHost = (hostname: string) => Promise<{ address: string; family: number }[]>;

export const systemResolver: ResolveHost = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/** EVO_WEBHOOK_ALLOW_CIDRS, read when used: the ranges of on-premises receivers an installation allows. */
export function webhookAllowList(env: Record<string, string | undefined> = process.env): Cidr[] {
  return parseAllowedCidrs(env.EVO_WEBHOOK_ALLOW_CIDRS);
}

export type WebhookTarget = { outcome: "allowed"; address: string; family: 4 | 6 } | { outcome: "refused"; message: string };

/**
 * The one address a webhook request may connect to, or why none. A host name is resolved and every
 * address it has is checked, not just the first: a name answering with one public and one internal
 * address would otherwise be a coin toss at connect time. The caller connects to the address
 * returned (never resolving again, which a rebinding name would answer differently).
 */
export async function webhookTarget(url: string, options: { allowed: readonly Cidr[]; resolve?: ResolveHost }): Promise<WebhookTarget> {
  const host = webhookHost(url, options.allowed);
  if (host.outcome === "refused") return host;
  if (host.outcome === "address") return { outcome: "allowed", address: host.address, family: host.address.includes(":") ? 6 : 4 };
  let addresses: { address: string; family: number }[];
  try {
    addresses = await (options.resolve ?? systemResolver)(host.name);
  } catch {
    return { outcome: "refused", message: `url: the host ${host.name} does not resolve to an address` };
  }
  if (addresses.length === 0) return { outcome: "refused", message: `url: the host ${host.name} does not resolve to an address` };
  for (const { address } of addresses) {
    const refusal = addressRefusal(address, options.allowed);
    if (refusal) return { outcome: "refused", message: `url: ${host.name} resolves to ${refusal}` };
  }
  const first = addresses[0]!;
  return { outcome: "allowed", address: first.address, family: first.family === 6 ? 6 : 4 };
}
