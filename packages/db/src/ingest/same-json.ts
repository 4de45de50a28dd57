/**
 * Whether `a` and `b` are written as the same JSON, key order aside (jsonb keeps none): a validated
 * value against the one it was validated from, so JSON written from that one stands for it. Validation
 * hands back the same strings, so a string compares by identity first and no text is read; NaN and
 * anything else JSON would write differently or not at all compare unequal.
 */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return typeof a !== "number" || Number.isFinite(a);
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, index) => sameJson(item, b[index]));
  }
  if (Object.getPrototypeOf(a) !== Object.prototype || Object.getPrototypeOf(b) !== Object.prototype) return false;
  const keys = writtenKeys(a);
  if (keys.length !== writtenKeys(b).length) return false;
  return keys.every((key) => Object.hasOwn(b, key) && sameJson((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]));
}

// JSON.stringify leaves out a key whose value is undefined, a function or a symbol.
const writtenKeys = (value: object): string[] =>
  Object.entries(value).filter(([, item]) => item !== undefined && typeof item !== "function" && typeof item !== "symbol").map(([key]) => key);
