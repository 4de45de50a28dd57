import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

const IV_BYTES = 12;
const TAG_BYTES = 16;

/** The 32-byte master key from `EVO_MASTER_KEY` (base64 or hex); secrets at rest are sealed under it. */
export function masterKeyFrom(env: Record<string, string | undefined>): Buffer {
  const text = env.EVO_MASTER_KEY?.trim();
  if (!text) throw new Error("EVO_MASTER_KEY is not set: stored secrets need it. Generate one with `openssl rand -base64 32` and keep it out of the database");
  const key = /^[0-9a-fA-F]{64}$/.test(text) ? Buffer.from(text, "hex") : Buffer.from(text, "base64");
  if (key.length !== 32) throw new Error(`EVO_MASTER_KEY must be 32 bytes (base64 or hex), got ${key.length}: generate one with \`openssl rand -base64 32\``);
  return key;
}

/**
 * AES-256-GCM: iv | tag | ciphertext. `context` (e.g. the node's name) is authenticated but not
 * stored, so a ciphertext copied onto another row does not open there.
 */
export function sealSecret(plain: string, masterKey: Buffer, context: string): Buffer {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv("aes-256-gcm", masterKey, iv);
  cipher.setAAD(Buffer.from(context));
  const data = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), data]);
}

export function openSecret(sealed: Uint8Array, masterKey: Buffer, context: string): string {
  const bytes = Buffer.from(sealed);
  const decipher = createDecipheriv("aes-256-gcm", masterKey, bytes.subarray(0, IV_BYTES));
  decipher.setAAD(Buffer.from(context));
  decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  try {
    return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString("utf8");
  } catch {
    throw new Error(`the stored secret of ${context} does not open with this EVO_MASTER_KEY (a different key, or the row was altered)`);
  }
}
