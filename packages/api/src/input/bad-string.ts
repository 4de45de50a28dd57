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
  const pending: { value: unknown; path: string }[] = [{ value: input, path: "" }];
  while (pending.length > 0) {
    const { value, path } = pending.pop()!;
    if (typeof value === "string") {
      const raw = rawText?.path.test(path) ?? false;
      const problem = stringProblem(value, { maxLength: raw ? rawText!.maxLength : MAX_INPUT_STRING, rawText: raw });
      if (problem) return `${path || "input"}: ${problem}`;
    } else if (Array.isArray(value)) {
      value.forEach((item, i) => pending.push({ value: item, path: join(path, String(i)) }));
    } else if (value !== null && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) {
      for (const [key, item] of Object.entries(value)) {
        const keyProblem = stringProblem(key, { maxLength: 200, rawText: false });
        if (keyProblem) return `${path || "input"}: a field name ${keyProblem}`;
        pending.push({ value: item, path: join(path, key) });
      }
    }
  }
  return null;
}

// Code units, not code points (no `u` flag): a high surrogate with no low one after it, or a low one with no high one before it.
const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function join(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

function stringProblem(value: string, options: { maxLength: number; rawText: boolean }): string | null {
  if (value.length > options.maxLength) return `is ${value.length.toLocaleString("en")} characters long; the most this field takes is ${options.maxLength.toLocaleString("en")}.`;
  if (options.rawText) return null;
  if (value.includes("\u0000")) return "contains a NUL character, which no field accepts.";
  if (UNPAIRED_SURROGATE.test(value)) return "contains an unpaired surrogate (text that is not valid Unicode).";
  return null;
}
