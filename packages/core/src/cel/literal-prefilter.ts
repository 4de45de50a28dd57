import { foldedAscii } from "../text/ascii.ts";
import { ESCAPED_PUNCT, PLAIN, splitPattern } from "./pattern-branches.ts";

/**
 * What a RE2 pattern's top-level alternatives demand literally, to answer `matches` without the
 * regex engine when a substring search settles it: a text lacking every alternative's required
 * literal cannot match, and a text containing an alternative that is nothing but a literal does.
 * Conservative: patterns with other flags or anything unparsed here get no plan (the engine decides).
 */
export interface LiteralPlan {
  /** One literal per alternative that every match of that alternative contains. */
  required: string[];
  /** Alternatives that are a plain literal: containing one is a match. */
  whole: string[];
  /** Alternatives `^literal$` without multi-line: only a text equal to the literal matches them. */
  exact: string[];
  /**
   * (?i): literals are lower-cased and compared with the lower-cased text. Only for ASCII texts:
   * RE2 folds a few non-ASCII letters onto ASCII ones (ſ onto s, the Kelvin sign onto k).
   */
  fold: boolean;
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

export function literalPlan(pattern: string): LiteralPlan | undefined {
  const parts = splitPattern(pattern);
  if (!parts) return undefined;
  const { fold, multiLine, branches } = parts;
  const cased = (x: string) => (fold ? x.toLowerCase() : x);
  const plan: LiteralPlan = { required: [], whole: [], exact: [], fold };
  for (const b of branches) {
    const anchored = !multiLine && b.length > 2 && b.startsWith("^") && b.endsWith("$") && !b.endsWith("\\$") ? branchLiteral(b.slice(1, -1)) : undefined;
    if (anchored?.whole && anchored.literal.length > 0) {
      plan.exact.push(cased(anchored.literal));
      continue;
    }
    const { literal, whole } = branchLiteral(b);
    if (literal.length < 2) return undefined;
    plan.required.push(cased(literal));
    if (whole) plan.whole.push(cased(literal));
  }
  return plan;
}

/** true or false when the literals settle `matches`, undefined when the regex engine must. */
export function literalVerdict(plan: LiteralPlan, text: string): boolean | undefined {
  const t = plan.fold ? foldedAscii(text) : text;
  if (t === undefined) return undefined;
  for (const w of plan.whole) if (t.includes(w)) return true;
  for (const e of plan.exact) if (t === e) return true;
  for (const r of plan.required) if (t.includes(r)) return undefined;
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
