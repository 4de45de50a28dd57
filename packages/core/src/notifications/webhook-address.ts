/**
 * Which addresses a webhook may reach. A webhook is a request the server makes on an admin's word;
 * aimed inside (the server's own ports, its database, a cloud metadata service) it would be a
 * probe of the internal network. By default only public unicast addresses pass; an installation
 * names its on-prem receivers' ranges explicitly (EVO_WEBHOOK_ALLOW_CIDRS).
 */

export interface IpAddress {
  family: 4 | 6;
  value: bigint;
}

export interface Cidr {
  family: 4 | 6;
  base: bigint;
  bits: number;
  text: string;
}

const BITS = { 4: 32, 6: 128 } as const;

function mask(family: 4 | 6, bits: number): bigint {
  const total = BITS[family];
  return bits === 0 ? 0n : ((1n << BigInt(bits)) - 1n) << BigInt(total - bits);
}

function contains(cidr: Cidr, ip: IpAddress): boolean {
  return cidr.family === ip.family && (ip.value & mask(ip.family, cidr.bits)) === cidr.base;
}

/** Canonical dotted-decimal IPv4 only: four decimal parts 0–255 without leading zeros. */
function parseIpv4(text: string): bigint | null {
  const parts = text.split(".");
  if (parts.length !== 4) return null;
  let value = 0n;
  for (const part of parts) {
    if (!/^(0|[1-9][0-9]{0,2})$/.test(part) || Number(part) > 255) return null;
    value = (value << 8n) | BigInt(part);
  }
  return value;
}

function parseIpv6(text: string): bigint | null {
  if (!/^[0-9a-fA-F:.]+$/.test(text)) return null;
  let groups: string[];
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const split = (half: string) => (half === "" ? [] : half.split(":"));
  const head = split(halves[0]!);
  const tail = halves.length === 2 ? split(halves[1]!) : [];
  // An embedded IPv4 address takes the last two groups.
  const last = (halves.length === 2 ? tail : head).at(-1);
  const embedded = last?.includes(".") ? parseIpv4(last) : null;
  if (last?.includes(".") && embedded === null) return null;
  const v4Groups = embedded === null ? [] : [((embedded >> 16n) & 0xffffn).toString(16), (embedded & 0xffffn).toString(16)];
  if (embedded !== null) (halves.length === 2 ? tail : head).pop();
  const explicit = head.length + tail.length + v4Groups.length;
  if (halves.length === 2) {
    if (explicit > 7) return null;
    groups = [...head, ...Array<string>(8 - explicit).fill("0"), ...tail, ...v4Groups];
  } else {
    groups = [...head, ...v4Groups];
  }
  if (groups.length !== 8) return null;
  let value = 0n;
  for (const group of groups) {
    if (!/^[0-9a-fA-F]{1,4}$/.test(group)) return null;
    value = (value << 16n) | BigInt(`0x${group}`);
  }
  return value;
}

/** An IP address in its usual text (IPv6 with or without brackets); null for anything else. */
export function parseIpAddress(text: string): IpAddress | null {
  const bare = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text;
  const v4 = parseIpv4(bare);
  if (v4 !== null) return { family: 4, value: v4 };
  const v6 = bare.includes(":") ? parseIpv6(bare) : null;
  return v6 === null ? null : { family: 6, value: v6 };
}

export function parseCidr(text: string): Cidr | null {
  const [address, bitsText, extra] = text.trim().split("/");
  if (extra !== undefined || !address) return null;
  const ip = parseIpAddress(address);
  if (!ip) return null;
  const bits = bitsText === undefined ? BITS[ip.family] : /^[0-9]{1,3}$/.test(bitsText) ? Number(bitsText) : NaN;
  if (!(bits >= 0 && bits <= BITS[ip.family])) return null;
  return { family: ip.family, base: ip.value & mask(ip.family, bits), bits, text: text.trim() };
}

/** EVO_WEBHOOK_ALLOW_CIDRS: comma-separated CIDRs (a bare address is one host). Throws naming the entry that is not one. */
export function parseAllowedCidrs(setting: string | undefined): Cidr[] {
  if (!setting?.trim()) return [];
  return setting.split(",").map((entry) => {
    const cidr = parseCidr(entry);
    if (!cidr) throw new Error(`EVO_WEBHOOK_ALLOW_CIDRS: "${entry.trim()}" is not an address range such as 10.20.0.0/16 or fd00::/8`);
    return cidr;
  });
}

const cidr = (text: string): Cidr => parseCidr(text)!;

// What each range is, as the refusal names it. IPv4-mapped and other IPv6 forms that carry an IPv4
// address are refused whole: the IPv4 inside would otherwise be reached past its own check.
const BLOCKED: [Cidr, string][] = [
  [cidr("0.0.0.0/8"), "an unspecified (this-network) address"],
  [cidr("10.0.0.0/8"), "a private address"],
  [cidr("100.64.0.0/10"), "a carrier-grade NAT (shared) address"],
  [cidr("127.0.0.0/8"), "a loopback address"],
  [cidr("169.254.0.0/16"), "a link-local address"],
  [cidr("172.16.0.0/12"), "a private address"],
  [cidr("192.0.0.0/24"), "an IETF protocol address"],
  [cidr("192.0.2.0/24"), "a documentation address"],
  [cidr("192.88.99.0/24"), "a 6to4 relay address"],
  [cidr("192.168.0.0/16"), "a private address"],
  [cidr("198.18.0.0/15"), "a benchmarking address"],
  [cidr("198.51.100.0/24"), "a documentation address"],
  [cidr("203.0.113.0/24"), "a documentation address"],
  [cidr("224.0.0.0/4"), "a multicast address"],
  [cidr("240.0.0.0/4"), "a reserved or broadcast address"],
  [cidr("::/128"), "the unspecified address"],
  [cidr("::1/128"), "a loopback address"],
  [cidr("::ffff:0:0/96"), "an IPv4-mapped IPv6 address"],
  [cidr("::/96"), "an IPv4-compatible IPv6 address"],
  [cidr("64:ff9b::/96"), "a NAT64 address (it carries an IPv4 address)"],
  [cidr("64:ff9b:1::/48"), "a NAT64 address (it carries an IPv4 address)"],
  [cidr("100::/64"), "a discard-only address"],
  [cidr("2001::/32"), "a Teredo address (it carries an IPv4 address)"],
  [cidr("2001:db8::/32"), "a documentation address"],
  [cidr("2002::/16"), "a 6to4 address (it carries an IPv4 address)"],
  [cidr("fc00::/7"), "a unique-local (private) address"],
  [cidr("fe80::/10"), "a link-local address"],
  [cidr("fec0::/10"), "a site-local address"],
  [cidr("ff00::/8"), "a multicast address"],
];

/** Why a webhook may not connect to this address, or null when it may. An allowed range wins over every block. */
export function addressRefusal(address: string, allowed: readonly Cidr[]): string | null {
  const ip = parseIpAddress(address);
  if (!ip) return `${address} is not an IP address`;
  if (allowed.some((range) => contains(range, ip))) return null;
  const blocked = BLOCKED.find(([range]) => contains(range, ip));
  return blocked ? `${address} is ${blocked[1]}, which webhooks may not reach (EVO_WEBHOOK_ALLOW_CIDRS allows on-premises ranges)` : null;
}

/** The host exactly as written in the URL (before any parser turns `2130706433` into `127.0.0.1`). */
function hostAsWritten(url: string): string | null {
  const match = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/(?:[^@/?#\\]*@)?(\[[^\]]*\]|[^:/?#\\]*)/.exec(url.trim());
  return match ? match[1]!.toLowerCase() : null;
}

export type WebhookHost = { outcome: "address"; address: string } | { outcome: "name"; name: string } | { outcome: "refused"; message: string };

/**
 * What a webhook URL points at, before any lookup: an IP address (checked here), a host name (to be
 * resolved and each address checked by addressRefusal), or a refusal. IPv4 written as one number, or
 * with octal or hex parts, is refused outright: such forms exist to slip past checks, and no receiver needs them.
 */
export function webhookHost(url: string, allowed: readonly Cidr[]): WebhookHost {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { outcome: "refused", message: "url: not a valid address" };
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return { outcome: "refused", message: "url: an http:// or https:// address" };
  if (parsed.username || parsed.password) return { outcome: "refused", message: "url: no user name or password in the address" };
  const written = hostAsWritten(url);
  if (written === null) return { outcome: "refused", message: "url: not a valid address" };
  const host = parsed.hostname.toLowerCase();
  // The URL parser read an IPv4 address where the text is not one in dotted decimal: `2130706433`, `0x7f.1`, `0177.0.0.1`.
  if (!written.startsWith("[") && parseIpAddress(host)?.family === 4 && parseIpv4(written) === null) {
    return { outcome: "refused", message: `url: the host ${written} is an IPv4 address written as a number or with octal or hex parts; write it as four decimal parts` };
  }
  const ip = parseIpAddress(host);
  if (ip) {
    const refusal = addressRefusal(host.replace(/^\[|\]$/g, ""), allowed);
    return refusal ? { outcome: "refused", message: `url: ${refusal}` } : { outcome: "address", address: host.replace(/^\[|\]$/g, "") };
  }
  return { outcome: "name", name: host };
}
