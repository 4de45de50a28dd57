import { RE2JS } from "@bufbuild/re2";
import { foldedAscii } from "../text/ascii.ts";
import { ESCAPED_PUNCT, PLAIN, splitPattern } from "./pattern-branches.ts";

/**
 * A pattern whose every alternative starts with a literal (`print\s*\(`, `git\s+log|\.git/`) can only
 * match where one of those literals occurs. When they occur a few times, trying the pattern anchored
 * at each occurrence reads a few characters each instead of running the engine over the whole text.
 */
export interface StartPlan {
  starts: string[];
  /** (?i): the starts are lower-case and found in the lower-cased ASCII text. */
  fold: boolean;
  /** The pattern anchored at the start of the text it is given, whatever follows the match. */
  anchored: RE2JS;
}

// Past this many occurrences the engine's own scan is the cheaper bound.
const MAX_CANDIDATES = 16;

/** The literal an alternative starts with: characters up to the first one that is not a plain literal or may be absent. */
function leadingLiteral(b: string): string {
  let run = "";
  for (let i = 0; i < b.length; ) {
    const c = b[i]!;
    let ch: string | undefined;
    let next = i + 1;
    if (c === "\\" && i + 1 < b.length && ESCAPED_PUNCT.test(b[i + 1]!)) {
      ch = b[i + 1];
      next = i + 2;
    } else if (c !== "\\" && PLAIN.test(c)) ch = c;
    const q = b[next];
    if (ch === undefined || q === "*" || q === "?" || q === "{") return run;
    run += ch;
    if (q === "+") return run;
    i = next;
  }
  return run;
}

export function startPlan(pattern: string): StartPlan | undefined {
  const parts = splitPattern(pattern);
  if (!parts) return undefined;
  const starts: string[] = [];
  for (const b of parts.branches) {
    const literal = leadingLiteral(b);
    if (literal === "") return undefined;
    starts.push(parts.fold ? literal.toLowerCase() : literal);
  }
  let anchored: RE2JS;
  try {
    anchored = RE2JS.compile(`${parts.flags}(?:${parts.body})(?s:.*)`);
  } catch {
    return undefined;
  }
  return { starts, fold: parts.fold, anchored };
}

/** Whether the pattern matches, or undefined when its starts occur too often (or the text is not ASCII under (?i)). */
export function startVerdict(plan: StartPlan, text: string): boolean | undefined {
  const t = plan.fold ? foldedAscii(text) : text;
  if (t === undefined) return undefined;
  const at: number[] = [];
  for (const s of plan.starts) {
    for (let i = t.indexOf(s); i >= 0; i = t.indexOf(s, i + 1)) {
      if (at.length === MAX_CANDIDATES) return undefined;
      at.push(i);
    }
  }
  for (const i of at) if (plan.anchored.testExact(text.slice(i))) return true;
  return false;
}
