import { celEnv, CelScalar, isCelError, parse, plan } from "@bufbuild/cel";

// All regex work goes through @bufbuild/cel's own `matches` (RE2 semantics, linear time), so a
// detector's pattern can never backtrack catastrophically and behaves the same in every helper.
const env = celEnv({ variables: { t: CelScalar.STRING, p: CelScalar.STRING } });
const matchesProgram = plan(env, parse("t.matches(p)"));

/** RE2 search: does `pattern` match anywhere in `text`? Throws on an invalid pattern. */
export function re2Test(text: string, pattern: string): boolean {
  const r = matchesProgram({ t: text, p: pattern });
  if (isCelError(r)) throw new Error(r.message);
  return r === true;
}

/** Why `pattern` is not valid RE2, or undefined when it is. */
export function re2Problem(pattern: string): string | undefined {
  const r = matchesProgram({ t: "", p: pattern });
  return isCelError(r) ? r.message : undefined;
}

export interface Span {
  start: number;
  end: number;
  text: string;
}

/**
 * The earliest-ending match of `pattern`, shortest at that end, found with O(log n) boolean RE2
 * searches (the engine reports no positions). Anchors and \b see the searched slice's edges, so
 * for anchored patterns the span is a best effort; whether the text matches at all is exact.
 */
export function re2Span(text: string, pattern: string): Span | undefined {
  if (!re2Test(text, pattern)) return undefined;
  // Smallest end such that text[0, end) contains a match.
  let lo = 0;
  let hi = text.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (re2Test(text.slice(0, mid), pattern)) hi = mid;
    else lo = mid + 1;
  }
  const end = lo;
  // Largest start such that text[start, end) still contains a match.
  lo = 0;
  hi = end;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (re2Test(text.slice(mid, end), pattern)) lo = mid;
    else hi = mid - 1;
  }
  return { start: lo, end, text: text.slice(lo, end) };
}
