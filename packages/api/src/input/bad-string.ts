/** The longest string any field takes unless its procedure says otherwise (import batches carry whole lines). */
export const MAX_INPUT_STRING = 64 * 1024;

/** Fields whose text is taken as it came, up to a longer bound (and quarantined by their own reader when it is not valid). */
export interface RawTextFields {
  path: RegExp;
  maxLength: number;
}

/**
 * The first string in a request's input that no field can take, as a sentence naming the field, or
 * null. NUL is refused by Postgres text and an unpaired surrogate by UTF-8 encoders, both deep inside
 * a query; refusing them here makes them a 400 at the boundary. Walked without recursion: the
 * input's depth is the caller's choice.
 */
export function badString(input: unknown, rawText?: RawTextFields): string | null {
  // Each entry points at its parent; a field's path is spelled out only for the one reported, so a
  // deeply nested input costs time in proportion to its size, not to its depth squared.
  const pending: Entry[] = [{ value: input, key: null, parent: null }];
  while (pending.length > 0) {
    const entry = pending.pop()!;
    const { value } = entry;
    if (typeof value === "string") {
      const path = rawText ? pathOf(entry) : "";
      const raw = rawText?.path.test(path) ?? false;
      const problem = stringProblem(value, { maxLength: raw ? rawText!.maxLength : MAX_INPUT_STRING, rawText: raw });
      if (problem) return `${pathOf(entry) || "input"}: ${problem}`;
    } else if (Array.isArray(value)) {
      value.forEach((item, i) => pending.push({ value: item, key: String(i), parent: entry }));
    } else if (value !== null && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) {
      for (const [key, item] of Object.entries(value)) {
        const keyProblem = stringProblem(key, { maxLength: 200, rawText: false });
        if (keyProblem) return `${pathOf(entry) || "input"}: a field name ${keyProblem}`;
        pending.push({ value: item, key, parent: entry });
      }
    }
  }
  return null;
}

interface Entry {
  value: unknown;
  key: string | null;
  parent: Entry | null;
}

function pathOf(entry: Entry): string {
  const keys: string[] = [];
  for (let at: Entry | null = entry; at?.key != null; at = at.parent) keys.push(at.key);
  return keys.reverse().join(".");
}

// Code units, not code points (no `u` flag): a high surrogate with no low one after it, or a low one with no high one before it.
const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function stringProblem(value: string, options: { maxLength: number; rawText: boolean }): string | null {
  if (value.length > options.maxLength) return `is ${value.length.toLocaleString("en")} characters long; the most this field takes is ${options.maxLength.toLocaleString("en")}.`;
  if (options.rawText) return null;
  if (value.includes("\u0000")) return "contains a NUL character, which no field accepts.";
  if (UNPAIRED_SURROGATE.test(value)) return "contains an unpaired surrogate (text that is not valid Unicode).";
  return null;
}
