import { BlockList, isIP } from "node:net";

/** Who sent a request, as far as this server can know it. */
export interface Forwarded {
  client: string;
  proto: "http" | "https";
  host: string | undefined;
}

/** `::ffff:10.0.0.1` is the IPv4 peer 10.0.0.1 on a dual-stack socket. */
function plain(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? mapped[1]! : address;
}

/** `EVO_TRUSTED_PROXIES`: addresses and CIDR ranges, comma-separated ("10.0.0.0/8, ::1"). */
export function parseTrustedProxies(value: string | undefined): BlockList {
  const list = new BlockList();
  for (const entry of (value ?? "").split(",").map((e) => e.trim()).filter(Boolean)) {
    const [address, prefix, extra] = entry.split("/");
    const family = isIP(address ?? "");
    const bits = prefix === undefined ? (family === 6 ? 128 : 32) : Number(prefix);
    if (!family || extra !== undefined || !Number.isInteger(bits) || bits < 0 || bits > (family === 6 ? 128 : 32)) {
      throw new Error(`EVO_TRUSTED_PROXIES: "${entry}" is not an IP address or CIDR range (e.g. 10.0.0.5, 10.0.0.0/8, ::1)`);
    }
    list.addSubnet(address!, bits, family === 6 ? "ipv6" : "ipv4");
  }
  return list;
}

function trusts(list: BlockList, address: string): boolean {
  const family = isIP(address);
  return family !== 0 && list.check(address, family === 6 ? "ipv6" : "ipv4");
}

const first = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value)?.split(",")[0]?.trim() || undefined;

/**
 * The client is the peer of the socket, unless that peer is a trusted proxy: then X-Forwarded-For
 * is read from the right, one hop per trusted proxy, and the first address no proxy vouches for
 * is the client. A client can prepend anything to the header; it cannot change what the proxy
 * appended. X-Forwarded-Proto and -Host count only when a trusted proxy sent them.
 */
export function resolveForwarded(
  request: { remoteAddress: string | undefined; encrypted: boolean; headers: Record<string, string | string[] | undefined> },
  trusted: BlockList,
): Forwarded {
  const peer = plain(request.remoteAddress ?? "");
  const own: Forwarded = { client: peer, proto: request.encrypted ? "https" : "http", host: first(request.headers.host) };
  if (!trusts(trusted, peer)) return own;
  let client = peer;
  const hops = [request.headers["x-forwarded-for"]].flat().join(",").split(",").map((h) => plain(h.trim())).filter(Boolean);
  for (const hop of hops.reverse()) {
    if (!isIP(hop)) break;
    client = hop;
    if (!trusts(trusted, hop)) break;
  }
  const proto = first(request.headers["x-forwarded-proto"])?.toLowerCase();
  return { client, proto: proto === "https" || proto === "http" ? proto : own.proto, host: first(request.headers["x-forwarded-host"]) ?? own.host };
}

/** Headers a client could use to claim another address, host or scheme; the server replaces them all. */
export const FORWARDING_HEADERS = ["forwarded", "x-forwarded-for", "x-forwarded-host", "x-forwarded-proto", "x-forwarded-port", "x-real-ip"] as const;
