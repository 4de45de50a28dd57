const LINE_FORMS: readonly { marker: string; line: RegExp; all: RegExp }[] = [
  { marker: "####", line: /^[ \t]*####[ \t]*(.+)$/, all: /^[ \t]*####[ \t]*(.+)$/gm },
  { marker: ":", line: /^[ \t]*(?:A|Answer|Final Answer)[ \t]*:[ \t]*(.+)$/i, all: /^[ \t]*(?:A|Answer|Final Answer)[ \t]*:[ \t]*(.+)$/gim },
];

/**
 * The final answer a math response commits to, or "" when it commits to none. Looks, in order of
 * precedence, for the last \boxed{...} (braces balanced), a "#### n" line (GSM8K reference style),
 * an "A: n" / "Answer: n" line, then "the answer is n". A response that is nothing but a number
 * (say " 21", the completion of a prompt ending in "Answer:") is its own answer.
 */
export function finalAnswer(text: string): string {
  const boxed = lastBoxed(text);
  if (boxed !== undefined) return boxed.trim();
  for (const form of LINE_FORMS) {
    const last = lastLineMatch(text, form);
    if (last !== undefined && last.trim() !== "") return last.trim();
  }
  let said: string | undefined;
  for (const m of text.matchAll(/answer is[ \t:]*\$?([^\s$][^\n]*?)\$?[ \t]*(?:\.(?:\s|$)|\n|$)/gi)) said = m[1];
  if (said !== undefined) return said.trim();
  return BARE_NUMBER.exec(text)?.[1] ?? "";
}

// A whole response that is one number (thousands commas, a fraction or a closing period allowed).
const BARE_NUMBER = /^\s*(-?\d[\d,]*(?:\.\d+)?(?:\/\d+)?)\.?\s*$/;

/**
 * `text.lastIndexOf(s)`, asked of `indexOf` first: V8 finds a substring forwards with a vectorised
 * scan (0.3 µs in 20 KB) but backwards one character at a time (12 µs), and most long chains of
 * thought hold no \boxed{} or ####, so the backward scan runs only when there is something to find.
 */
function lastIndexOf(text: string, s: string): number {
  return text.indexOf(s) < 0 ? -1 : text.lastIndexOf(s);
}

const isLineEnd = (c: number) => c === 10 || c === 13 || c === 0x2028 || c === 0x2029;

/**
 * The group of the last line the form matches. Every match holds the marker, so when the last line
 * holding it matches, that is the last match: one line read from the end instead of a scan of a
 * long chain of thought. Otherwise a full scan decides.
 */
function lastLineMatch(text: string, form: (typeof LINE_FORMS)[number]): string | undefined {
  const at = lastIndexOf(text, form.marker);
  if (at < 0) return undefined;
  let start = at;
  while (start > 0 && !isLineEnd(text.charCodeAt(start - 1))) start--;
  let end = at;
  while (end < text.length && !isLineEnd(text.charCodeAt(end))) end++;
  const m = form.line.exec(text.slice(start, end));
  if (m) return m[1];
  let last: string | undefined;
  for (const all of text.matchAll(form.all)) last = all[1];
  return last;
}

function lastBoxed(text: string): string | undefined {
  const at = lastIndexOf(text, "\\boxed{");
  if (at < 0) return undefined;
  let depth = 0;
  const start = at + "\\boxed{".length;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (c === "{") depth++;
    else if (c === "}") {
      if (depth === 0) return text.slice(start, i);
      depth--;
    }
  }
  return undefined;
}

/**
 * Whether two final answers agree: numerically when both read as numbers (thousands separators,
 * currency signs, trailing periods, simple fractions and a percent sign tolerated), else as
 * normalised text. A percent compares as its number, as standard math graders (Hendrycks MATH's
 * strip_string, verl's math reward) do: `\boxed{10\%}` and `10%` both equal a ground truth of 10.
 */
export function answersEqual(a: string, b: string): boolean {
  const x = normalise(a);
  const y = normalise(b);
  if (x === "" || y === "") return false;
  const nx = asNumber(x);
  const ny = asNumber(y);
  if (nx !== undefined && ny !== undefined) return Math.abs(nx - ny) <= 1e-9 * Math.max(1, Math.abs(nx), Math.abs(ny));
  return x.toLowerCase() === y.toLowerCase();
}

function normalise(s: string): string {
  return s
    .trim()
    .replace(/^\\text\{(.*)\}$/, "$1")
    .replace(/\\[!,; ]|\\\$|[$\s]/g, "")
    .replace(/\\%/g, "%")
    .replace(/(\d),(?=\d{3}\b)/g, "$1")
    .replace(/\.$/, "");
}

function asNumber(s: string): number | undefined {
  const frac = /^(-?)\\d?frac\{(-?[\d.]+)\}\{(-?[\d.]+)\}$/.exec(s) ?? /^(-?)([\d.]+)\/([\d.]+)$/.exec(s);
  if (frac) {
    const v = Number(frac[2]) / Number(frac[3]);
    return Number.isFinite(v) ? (frac[1] === "-" ? -v : v) : undefined;
  }
  const n = /^-?(\d+\.?\d*|\.\d+)(e-?\d+)?%?$/i.test(s) ? Number(s.replace(/%$/, "")) : Number.NaN;
  return Number.isFinite(n) ? n : undefined;
}
