import type { Rollout } from "@evotrainer/contract";

/** What had to change for a rollout to be storable; kept in `extra.sanitized`. */
export type SanitizedKind = "nul" | "lone_surrogate" | "invalid_utf8";

// Postgres text and jsonb refuse U+0000 and unpaired UTF-16 surrogates, which JSON escapes can carry.
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

// The only JSON escapes that can carry them: `\u0000` and a surrogate's `\uD800`–`\uDFFF`. A raw NUL
// is not valid JSON, and bytes that are not UTF-8 decode to U+FFFD. Other escapes (`\u001b` of a
// terminal's colours, common in agents' tool output) cannot, and do not cost a walk of the rollout.
const UNSTORABLE_ESCAPE = /\\u(?:0000|[dD][89a-fA-F])/;

/** Whether a JSON text may decode to something `storableRollout` has to change. */
export const mayHoldUnstorable = (json: string): boolean => UNSTORABLE_ESCAPE.test(json);

function storableString(text: string, found: Set<SanitizedKind>): string {
  return text.replace(UNSTORABLE, (char) => {
    if (char === "\u0000") {
      found.add("nul");
      return "\\u0000";
    }
    found.add("lone_surrogate");
    return "\ufffd";
  });
}

function storableValue(value: unknown, found: Set<SanitizedKind>): unknown {
  if (typeof value === "string") return storableString(value, found);
  if (Array.isArray(value)) return value.map((item) => storableValue(item, found));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [storableString(k, found), storableValue(v, found)]));
  }
  return value;
}

/**
 * The rollout as Postgres can store it: NUL becomes the visible text `\u0000`, an unpaired surrogate
 * becomes U+FFFD, and what was changed (with bytes that were not UTF-8 in the file) is listed in
 * `extra.sanitized` so the rollout is flagged rather than lost or aborting its batch. Only a JSON line
 * for which `mayHoldUnstorable` holds (`escaped`) can carry either, so the common case costs one scan
 * of its text.
 */
export function storableRollout(rollout: Rollout, escaped: boolean, invalidUtf8: boolean): Rollout {
  const found = new Set<SanitizedKind>();
  if (invalidUtf8) found.add("invalid_utf8");
  const clean = escaped ? (storableValue(rollout, found) as Rollout) : rollout;
  if (found.size === 0) return rollout;
  return { ...clean, extra: { ...clean.extra, sanitized: [...found].sort() } };
}
