import { createHash, randomBytes } from "node:crypto";

/** 256 random bits, URL-safe, behind a readable prefix so a leaked secret is recognisable in a scan. */
export function newSecretToken(prefix: string): string {
  return `${prefix}_${randomBytes(32).toString("base64url")}`;
}

/** What is stored instead of a token: the token itself is shown once and never kept. */
export function sha256Hex(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}
