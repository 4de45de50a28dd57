import { canonicalJson } from "./canonical-json.ts";
import { sha256Hex } from "./sha256.ts";

/** sha256 hex of the canonical JSON: equal content, equal hash, whatever the key order. */
export function contentHash(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}
