import { asciiNgramCounts, hashedNgramCount, kernelRepeatRun, kernelRepeatRunAtLeast } from "./text-kernel.ts";

/**
 * Share of word n-grams that repeat an earlier one (0 = all distinct, near 1 = a loop). Numbers are
 * collapsed first because a loop usually keeps counting ("On the 7th day … On the 8th day …").
 * Texts too short to show a loop score 0. ASCII text is split and counted in the text kernel; any
 * other is split here, as the string methods define Unicode case and whitespace, and counted there.
 */
export function ngramRepeatRatio(text: string, n: number): number {
  if (n < 1) return 0;
  const ascii = asciiNgramCounts(text, n);
  if (ascii) return ratio(ascii.words, ascii.distinct, n);
  const hashes = wordHashesOf(text);
  const words = hashes.length / 2;
  return words < n + 8 ? 0 : ratio(words, hashedNgramCount(hashes, n), n);
}

const ratio = (words: number, distinct: number, n: number) => (words < n + 8 ? 0 : 1 - distinct / (words - n + 1));

// A word is two 32-bit hashes of its characters (lower-cased, digit runs as one "0"): no string per word.
function wordHashesOf(text: string): Int32Array {
  const words = text.toLowerCase().replace(/\d+/g, "0").split(/\s+/).filter((w) => w !== "");
  const out = new Int32Array(2 * words.length);
  words.forEach((w, k) => {
    let h1 = 0x811c9dc5 | 0;
    let h2 = 0x9747b28c | 0;
    for (let i = 0; i < w.length; i++) {
      const c = w.charCodeAt(i);
      h1 = Math.imul(h1 ^ c, 0x01000193);
      h2 = Math.imul(h2 ^ c, 0x5bd1e995) ^ (h2 >>> 13);
    }
    out[2 * k] = h1;
    out[2 * k + 1] = h2;
  });
  return out;
}

/**
 * Length of the longest stretch of text made of one short unit (up to `maxPeriod` characters)
 * repeated back to back: catches "333333…" or "181818…" loops that have no word boundaries.
 */
export function repeatRun(text: string, maxPeriod = 16): number {
  return kernelRepeatRun(text, maxPeriod);
}

/** Whether `repeatRun(text, maxPeriod) >= min`, probing only what could decide it. */
export function repeatRunAtLeast(text: string, min: number, maxPeriod = 16): boolean {
  return kernelRepeatRunAtLeast(text, min, maxPeriod);
}
