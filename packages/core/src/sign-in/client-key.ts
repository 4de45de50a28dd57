/**
 * The client an address stands for when wrong passwords are counted: an IPv4 address as it is, an
 * IPv6 address by its /64 prefix. A host is commonly handed a whole /64, so counting each of its
 * addresses apart would give it as many allowances as it likes.
 */
export function clientKey(address: string): string {
  const plain = address.trim().toLowerCase().replace(/%.*$/, "");
  const groups = plain.includes(":") ? ipv6Groups(plain) : null;
  if (!groups) return plain || "unknown";
  return `${groups.slice(0, 4).map((g) => g.toString(16)).join(":")}::/64`;
}

/** The eight groups of an IPv6 address written with or without `::`; null for anything else (an embedded IPv4 tail included). */
function ipv6Groups(address: string): number[] | null {
  const halves = address.split("::");
  if (halves.length > 2) return null;
  const split = (s: string | undefined) => (s ? s.split(":") : []);
  const left = split(halves[0]);
  const right = split(halves[1]);
  const zeros = halves.length === 2 ? 8 - left.length - right.length : 0;
  if (zeros < (halves.length === 2 ? 1 : 0) || left.length + zeros + right.length !== 8) return null;
  const groups = [...left, ...Array<string>(zeros).fill("0"), ...right];
  return groups.every((g) => /^[0-9a-f]{1,4}$/.test(g)) ? groups.map((g) => parseInt(g, 16)) : null;
}
