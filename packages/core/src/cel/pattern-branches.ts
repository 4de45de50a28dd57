/**
 * A RE2 pattern taken apart as far as the literal prefilters need: its leading flags and its
 * top-level alternatives. Patterns this does not follow (other flags, unbalanced groups) give none.
 */
export interface PatternParts {
  /** The leading flag group as written, e.g. "(?m)", or "". */
  flags: string;
  /** The pattern after its flags. */
  body: string;
  fold: boolean;
  multiLine: boolean;
  branches: string[];
}

export const PLAIN = /[A-Za-z0-9 _\-:=,;'"<>/!@#%&~`]/;
export const ESCAPED_PUNCT = /[.()[\]{}*+?|\\/\-^$]/;

function topLevelBranches(p: string): string[] | undefined {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < p.length; i++) {
    const c = p[i];
    if (c === "\\") i++;
    else if (c === "[") {
      // Skip the class; a ']' first in it is literal.
      i++;
      if (p[i] === "^") i++;
      if (p[i] === "]") i++;
      while (i < p.length && p[i] !== "]") i += p[i] === "\\" ? 2 : 1;
      if (i >= p.length) return undefined;
    } else if (c === "(") depth++;
    else if (c === ")") depth--;
    else if (c === "|" && depth === 0) {
      out.push(p.slice(start, i));
      start = i + 1;
    }
  }
  out.push(p.slice(start));
  return depth === 0 ? out : undefined;
}

/** `(A|B)` and `(?:A|B)` spanning the whole pattern demand what `A|B` does. */
function unwrapWholeGroup(p: string): string {
  if (!p.startsWith("(") || p.startsWith("(?") && !p.startsWith("(?:")) return p;
  let depth = 0;
  for (let i = 0; i < p.length; i++) {
    if (p[i] === "\\") i++;
    else if (p[i] === "[") {
      i++;
      if (p[i] === "^") i++;
      if (p[i] === "]") i++;
      while (i < p.length && p[i] !== "]") i += p[i] === "\\" ? 2 : 1;
    } else if (p[i] === "(") depth++;
    else if (p[i] === ")" && --depth === 0) return i === p.length - 1 ? p.slice(p.startsWith("(?:") ? 3 : 1, -1) : p;
  }
  return p;
}

export function splitPattern(pattern: string): PatternParts | undefined {
  // Multi-line and dot-all only move anchors and '.', never what a literal matches; case folding
  // widens each letter to both cases, which the prefilters follow on ASCII texts.
  const flags = /^\(\?([ims]+)\)/.exec(pattern);
  const body = pattern.slice(flags?.[0].length ?? 0);
  const unwrapped = unwrapWholeGroup(body);
  if (/\(\?(?!:)/.test(unwrapped)) return undefined;
  const branches = topLevelBranches(unwrapped);
  if (!branches) return undefined;
  return { flags: flags?.[0] ?? "", body, fold: flags?.[1]!.includes("i") ?? false, multiLine: flags?.[1]!.includes("m") ?? false, branches };
}
