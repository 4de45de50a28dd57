/**
 * What a RE2 pattern's top-level alternatives demand literally, to answer `matches` without the
 * regex engine when a substring search settles it: a text lacking every alternative's required
 * literal cannot match, and a text containing an alternative that is nothing but a literal does.
 * Conservative: patterns with flags or anything unparsed here get no plan (the engine decides).
 */
export interface LiteralPlan {
  /** One literal per alternative that every match of that alternative contains. */
  required: string[];
  /** Alternatives that are a plain literal: containing one is a match. */
  whole: string[];
}

const PLAIN = /[A-Za-z0-9 _\-:=,;'"<>/!@#%&~`]/;
const ESCAPED_PUNCT = /[.()[\]{}*+?|\\/\-^$]/;

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

/** The longest literal run at depth 0 of a branch, and whether the branch is only that literal. */
function branchLiteral(b: string): { literal: string; whole: boolean } {
  let best = "";
  let run = "";
  let whole = true;
  const flush = () => {
    if (run.length > best.length) best = run;
    run = "";
  };
  for (let i = 0; i < b.length; ) {
    let ch: string | undefined;
    let next = i + 1;
    const c = b[i]!;
    if (c === "\\" && i + 1 < b.length && ESCAPED_PUNCT.test(b[i + 1]!)) {
      ch = b[i + 1];
      next = i + 2;
    } else if (c !== "\\" && PLAIN.test(c)) ch = c;
    if (ch === undefined) {
      whole = false;
      flush();
      // Skip a class or a group whole; anything else (an escape like \s, '.', an anchor) is one token.
      if (c === "[") {
        let j = i + 1;
        if (b[j] === "^") j++;
        if (b[j] === "]") j++;
        while (j < b.length && b[j] !== "]") j += b[j] === "\\" ? 2 : 1;
        next = j + 1;
      } else if (c === "(") {
        let depth = 0;
        let j = i;
        for (; j < b.length; j++) {
          if (b[j] === "\\") j++;
          else if (b[j] === "(") depth++;
          else if (b[j] === ")" && --depth === 0) break;
        }
        next = j + 1;
      } else if (c === "\\") next = i + 2;
      i = next;
      continue;
    }
    const q = b[next];
    if (q === "*" || q === "?" || q === "{") {
      // The character may be absent: it ends the run without joining it.
      whole = false;
      flush();
      i = next;
      continue;
    }
    run += ch;
    if (q === "+") {
      whole = false;
      flush();
      i = next + 1;
      continue;
    }
    i = next;
  }
  flush();
  return { literal: best, whole: whole && best.length === b.length - (b.match(/\\/g)?.length ?? 0) };
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

export function literalPlan(pattern: string): LiteralPlan | undefined {
  // Multi-line and dot-all only move anchors and '.', never what a literal matches; any other flag
  // (case folding above all) changes it, so such patterns stay with the engine.
  const body = unwrapWholeGroup(pattern.replace(/^\(\?[ms]+\)/, ""));
  if (/\(\?(?!:)/.test(body)) return undefined;
  const branches = topLevelBranches(body);
  if (!branches) return undefined;
  const required: string[] = [];
  const whole: string[] = [];
  for (const b of branches) {
    const { literal, whole: isWhole } = branchLiteral(b);
    if (literal.length < 2) return undefined;
    required.push(literal);
    if (isWhole) whole.push(literal);
  }
  return { required, whole };
}

/** true or false when the literals settle `matches`, undefined when the regex engine must. */
export function literalVerdict(plan: LiteralPlan, text: string): boolean | undefined {
  for (const w of plan.whole) if (text.includes(w)) return true;
  for (const r of plan.required) if (text.includes(r)) return undefined;
  return false;
}

/**
 * RE2's `\S` (rules use `matches(r'\S')` for "not blank"): any character but RE2's whitespace,
 * [\t\n\f\r ], which is narrower than JavaScript's \s (no \v, no Unicode spaces).
 */
export function hasNonSpace(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 32 && c !== 9 && c !== 10 && c !== 12 && c !== 13) return true;
  }
  return false;
}
