import { celEnv, CelScalar, isCelError, parse, plan } from "@bufbuild/cel";
import { RE2JS } from "@bufbuild/re2";

type RE2 = NonNullable<NonNullable<Parameters<typeof celEnv>[0]>["re2"]>;

const CACHED_PATTERNS = 512;
const compiled = new Map<string, RE2JS>();

/**
 * @bufbuild/cel's RE2 engine (linear time), with compiled patterns cached: the built-in `matches`
 * recompiles its pattern on every call, which dominated detector evaluation. Bounded so that
 * rules building patterns from data cannot grow it without limit.
 */
export const cachingRe2: RE2 = {
  compile(pattern) {
    let regex = compiled.get(pattern);
    if (!regex) {
      regex = RE2JS.compile(pattern);
      if (compiled.size >= CACHED_PATTERNS) compiled.delete(compiled.keys().next().value!);
      compiled.set(pattern, regex);
    }
    return regex;
  },
};

// All regex work goes through CEL's `matches` (RE2 semantics, linear time), so a detector's
// pattern can never backtrack catastrophically and behaves the same in every helper.
const env = celEnv({ variables: { t: CelScalar.STRING, p: CelScalar.STRING }, re2: cachingRe2 });
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
