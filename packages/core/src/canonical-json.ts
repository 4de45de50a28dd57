/**
 * Canonical JSON: object keys sorted by code unit, no whitespace, `undefined` members dropped.
 * Two recipes that mean the same thing serialise to the same bytes, so their content hash agrees.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value === "boolean" || typeof value === "string") {
    return JSON.stringify(value);
  }
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new Error(`canonical JSON cannot hold ${value}`);
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) {
    return `[${value.map((v) => (v === undefined ? "null" : canonicalJson(v))).join(",")}]`;
  }
  if (typeof value === "object") {
    // The default sort orders by UTF-16 code unit, as canonical JSON requires.
    const keys = Object.keys(value).sort();
    let out = "";
    for (const k of keys) {
      const v = (value as Record<string, unknown>)[k];
      if (v === undefined) continue;
      out += `${out === "" ? "" : ","}${JSON.stringify(k)}:${canonicalJson(v)}`;
    }
    return `{${out}}`;
  }
  throw new Error(`canonical JSON cannot hold a ${typeof value}`);
}
