/** Longest normalised line kept: a signature names a kind of failure, not its whole text. */
const MAX_CHARS = 160;

// Order matters: quoted values first (they may hold paths and numbers), then paths (they hold
// numbers and hex), then ids and hex, then the remaining numbers.
const RULES: readonly [RegExp, string][] = [
  // A comparison the grader printed ("3 != 5", "BAB != BCAC"): both sides are values.
  [/:\s*[^:]*\s!=\s.*$/, ": <value> != <value>"],
  [/"(?:[^"\\\n]|\\.)*"/g, "<q>"],
  // Not the apostrophe of "can't": a quote opens after a non-word character and closes before one.
  [/(?<!\w)'(?:[^'\\\n]|\\.)*'(?!\w)/g, "<q>"],
  [/`[^`\n]*`/g, "<q>"],
  [/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, "<id>"],
  [/\b[a-z][a-z+.-]*:\/\/\S+/gi, "<url>"],
  [/(?:[A-Za-z]:|~|\.{1,2}|[\w.@+-]+)?(?:\/[\w.@+-]+)+\/?/g, "<path>"],
  [/\b[\w-]+\.(?:py|pyx|pyi|js|mjs|cjs|ts|tsx|jsx|c|cc|cpp|h|hpp|rs|go|java|rb|sh|json|ya?ml|toml|cfg|ini|txt|md|rst|html|css|csv|log|lock)\b/gi, "<path>"],
  [/\b0x[0-9a-f]+\b/gi, "<hex>"],
  [/\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,}\b/gi, "<hex>"],
  // Identifiers with digits in them (table_3, run42, v1.2.3-rc1): generated names, not words.
  [/\b(?=[\w-]*\d)(?=[\w-]*[A-Za-z])[A-Za-z_][\w-]*\b/g, "<id>"],
  // snake_case names (tables, fields, modules a test created): they differ per task.
  [/\b_*[A-Za-z][A-Za-z0-9]*(?:_+[A-Za-z0-9]+)+_*\b(?!=)|\b__\w+__\b/g, "<id>"],
  // No \b after: "0.20s" and "3rd" are numbers with a unit.
  [/[-+]?\b\d+(?:\.\d+)?(?:e[-+]?\d+)?/gi, "<n>"],
];

/**
 * One error line with what varies between occurrences of the same failure taken out: quoted values,
 * paths and file names, ids, hex and numbers become placeholders, whitespace is collapsed. Two
 * rollouts that failed the same way get the same text, which is what clusters them.
 */
export function normaliseErrorText(line: string): string {
  // Rulers around a summary ("==== 2 failed, 1 passed in 0.20s ====") are decoration.
  let s = line.replace(/\s+/g, " ").replace(/^[=\-_*#~ ]{3,}|[=\-_*#~ ]{3,}$/g, "").trim();
  for (const [pattern, placeholder] of RULES) s = s.replace(pattern, placeholder);
  // Runs of placeholders ("<n>, <n>, <n>") are one value list.
  s = s.replace(/<(n|q|id|hex|path|url)>(?:[\s,;]+<\1>)+/g, "<$1>…");
  return s.length > MAX_CHARS ? `${s.slice(0, MAX_CHARS - 1)}…` : s;
}
