export const SIGNATURE_HEADER = "X-EvoTrainer-Signature";

/** The string HMAC-SHA256 signs: the unix time, a dot, the exact body (so a replayed body with a new time fails). */
export function signedString(unixSeconds: number, body: string): string {
  return `${unixSeconds}.${body}`;
}

export function signatureHeaderValue(unixSeconds: number, hexDigest: string): string {
  return `t=${unixSeconds},v1=${hexDigest}`;
}

/** Splits a header value back into its time and digest; null when it is not in `t=…,v1=…` form. */
export function parseSignatureHeader(value: string): { t: number; v1: string } | null {
  const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(value.trim());
  return match ? { t: Number(match[1]), v1: match[2]! } : null;
}
