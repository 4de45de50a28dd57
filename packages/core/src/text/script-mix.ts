import { isAscii } from "./ascii.ts";

const SCRIPTS: ReadonlyArray<[string, RegExp]> = [
  ["latin", /\p{Script=Latin}/u],
  ["cyrillic", /\p{Script=Cyrillic}/u],
  ["greek", /\p{Script=Greek}/u],
  ["cjk", /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u],
  ["hangul", /\p{Script=Hangul}/u],
  ["arabic", /\p{Script=Arabic}/u],
  ["hebrew", /\p{Script=Hebrew}/u],
  ["devanagari", /\p{Script=Devanagari}/u],
  ["thai", /\p{Script=Thai}/u],
];
const LETTER = /\p{L}/u;

/**
 * Share of letters written in a script other than the text's dominant one: a model that drifts
 * from English into Chinese mid-answer scores high, a pure-English or pure-Chinese answer scores 0.
 * Greek letters inside math (α, π) are a known, small source of noise.
 */
export function scriptMix(text: string): number {
  // Every ASCII letter is Latin: one script, no mix.
  if (isAscii(text)) return 0;
  let latin = 0;
  let letters = 0;
  let others: Map<string, number> | undefined;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    // ASCII fast path: letters are Latin, everything else is not a letter.
    if (code < 128) {
      if ((code | 32) >= 97 && (code | 32) <= 122) {
        latin++;
        letters++;
      }
      continue;
    }
    const point = text.codePointAt(i)!;
    if (point > 0xffff) i++;
    const ch = String.fromCodePoint(point);
    if (!LETTER.test(ch)) continue;
    letters++;
    const script = SCRIPTS.find(([, re]) => re.test(ch))?.[0] ?? "other";
    if (script === "latin") latin++;
    else (others ??= new Map()).set(script, (others.get(script) ?? 0) + 1);
  }
  if (letters === 0) return 0;
  return 1 - Math.max(latin, ...(others?.values() ?? [])) / letters;
}
