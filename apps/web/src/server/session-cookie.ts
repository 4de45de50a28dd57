import "server-only";
import { env } from "~/env";
import { localAuthSecret } from "./auth-secret";

const HMAC = { name: "HMAC", hash: "SHA-256" } as const;
let key: Promise<CryptoKey> | undefined;

/**
 * Whether a session cookie carries this server's signature (`token.base64(HMAC-SHA256)`, as Better
 * Auth signs it). The proxy turns a forged cookie away before any page renders: pages prefetch
 * data beside the layout's session check, and a forged cookie would fail those reads as errors.
 */
export async function sessionCookieIsSigned(cookie: string): Promise<boolean> {
  const value = cookie.includes("%") ? decodeURIComponent(cookie) : cookie;
  const dot = value.lastIndexOf(".");
  if (dot < 1) return false;
  let signature: Uint8Array<ArrayBuffer>;
  try {
    signature = Uint8Array.from(atob(value.slice(dot + 1)), (c) => c.charCodeAt(0));
  } catch {
    return false;
  }
  key ??= crypto.subtle.importKey("raw", new TextEncoder().encode(env.BETTER_AUTH_SECRET ?? localAuthSecret()), HMAC, false, ["verify"]);
  return crypto.subtle.verify(HMAC, await key, signature, new TextEncoder().encode(value.slice(0, dot)));
}
