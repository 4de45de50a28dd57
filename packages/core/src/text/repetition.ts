import { isAscii } from "./ascii.ts";

/**
 * Share of word n-grams that repeat an earlier one (0 = all distinct, near 1 = a loop). Numbers are
 * collapsed first because a loop usually keeps counting ("On the 7th day … On the 8th day …").
 * Texts too short to show a loop score 0.
 */
export function ngramRepeatRatio(text: string, n: number): number {
  if (n < 1) return 0;
  const words = isAscii(text) ? asciiWordHashes(text) : wordHashesOf(text);
  const count = words.length / 2;
  if (count < n + 8) return 0;
  const total = count - n + 1;
  return 1 - distinctNgrams(words, n, total) / total;
}

// A word is two 32-bit hashes of its characters (lower-cased, digit runs as one "0"): no string per word.
const FNV1 = 0x811c9dc5;
const FNV2 = 0x9747b28c;
let wordBuffer = new Int32Array(1024);

function pushWord(count: number, h1: number, h2: number): number {
  if (2 * count + 2 > wordBuffer.length) {
    const grown = new Int32Array(wordBuffer.length * 2);
    grown.set(wordBuffer);
    wordBuffer = grown;
  }
  wordBuffer[2 * count] = h1;
  wordBuffer[2 * count + 1] = h2;
  return count + 1;
}

/** The ASCII path: JavaScript's `\s` is [\t\n\v\f\r ] there, and lower-casing is one bit. */
function asciiWordHashes(text: string): Int32Array {
  let count = 0;
  let inWord = false;
  let inDigits = false;
  let h1 = FNV1;
  let h2 = FNV2;
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 32;
    if (c === 32 || (c >= 9 && c <= 13)) {
      if (inWord) count = pushWord(count, h1, h2);
      inWord = false;
      inDigits = false;
      h1 = FNV1;
      h2 = FNV2;
      continue;
    }
    inWord = true;
    if (c >= 48 && c <= 57) {
      if (inDigits) continue;
      inDigits = true;
      h1 = Math.imul(h1 ^ 48, 0x01000193);
      h2 = Math.imul(h2 ^ 48, 0x5bd1e995) ^ (h2 >>> 13);
      continue;
    }
    inDigits = false;
    const lower = c >= 65 && c <= 90 ? c + 32 : c;
    h1 = Math.imul(h1 ^ lower, 0x01000193);
    h2 = Math.imul(h2 ^ lower, 0x5bd1e995) ^ (h2 >>> 13);
  }
  return wordBuffer.subarray(0, 2 * count);
}

/** Any text: Unicode lower-casing and whitespace as the string methods define them. */
function wordHashesOf(text: string): Int32Array {
  let count = 0;
  for (const w of text.toLowerCase().replace(/\d+/g, "0").split(/\s+/)) {
    if (w === "") continue;
    let h1 = FNV1;
    let h2 = FNV2;
    for (let i = 0; i < w.length; i++) {
      const c = w.charCodeAt(i);
      h1 = Math.imul(h1 ^ c, 0x01000193);
      h2 = Math.imul(h2 ^ c, 0x5bd1e995) ^ (h2 >>> 13);
    }
    count = pushWord(count, h1, h2);
  }
  return wordBuffer.subarray(0, 2 * count);
}

let table = new Float64Array(1024);

// Odd multipliers with well-mixed bits (the 32-bit golden ratio, and MurmurHash3's c1).
const BASE1 = 0x9e3779b1 | 0;
const BASE2 = 0xcc9e2d51 | 0;

/**
 * Distinct n-grams of the word hashes, counted in an open-addressing table of 53-bit keys. Each
 * n-gram's two hashes are polynomial in its words' hashes, so the next n-gram's comes from this one
 * in a few multiplications (drop the first word, shift, add the next) instead of hashing n words again.
 */
function distinctNgrams(words: Int32Array, n: number, total: number): number {
  // The smallest table for this text, not the largest any text needed: a short text after a long
  // one clears and probes a few KB, not the long one's table.
  let size = 64;
  while (size < 2 * total) size *= 2;
  if (size > table.length) table = new Float64Array(size);
  table.fill(0, 0, size);
  const mask = size - 1;
  // The weight of an n-gram's first word: BASE^(n-1), modulo 2^32 like every product here.
  let top1 = 1;
  let top2 = 1;
  for (let k = 1; k < n; k++) {
    top1 = Math.imul(top1, BASE1);
    top2 = Math.imul(top2, BASE2);
  }
  let h1 = 0;
  let h2 = 0;
  for (let k = 0; k < n; k++) {
    h1 = (Math.imul(h1, BASE1) + words[2 * k]!) | 0;
    h2 = (Math.imul(h2, BASE2) + words[2 * k + 1]!) | 0;
  }
  let distinct = 0;
  for (let i = 0; ; i++) {
    // +1 keeps 0 free as the empty slot; the key stays below 2^53.
    const key = (h1 >>> 0) * 0x200000 + (h2 & 0x1fffff) + 1;
    let slot = (h1 ^ (h2 >>> 7)) & mask;
    for (;;) {
      const held = table[slot]!;
      if (held === 0) {
        table[slot] = key;
        distinct++;
        break;
      }
      if (held === key) break;
      slot = (slot + 1) & mask;
    }
    if (i + 1 === total) return distinct;
    h1 = (Math.imul(h1 - Math.imul(words[2 * i]!, top1), BASE1) + words[2 * (i + n)]!) | 0;
    h2 = (Math.imul(h2 - Math.imul(words[2 * i + 1]!, top2), BASE2) + words[2 * (i + n) + 1]!) | 0;
  }
}

/**
 * Length of the longest stretch of text made of one short unit (up to `maxPeriod` characters)
 * repeated back to back: catches "333333…" or "181818…" loops that have no word boundaries. A
 * stretch of period p beats the best so far only with more than `best - p` positions where the text
 * equals itself shifted by p, so once a long stretch is known only every so many positions is probed
 * (as repeatRunAtLeast does), and each stretch a probe lands in is measured whole. The longest period
 * goes first: any one position that equals itself shifted by it is worth maxPeriod + 1, which almost
 * every text has, so the shorter periods are probed sparsely from the start.
 */
export function repeatRun(text: string, maxPeriod = 16): number {
  const n = text.length;
  let best = 0;
  for (let p = maxPeriod; p >= 1; p--) {
    let need = Math.max(1, best - p + 1);
    for (let i = need - 1; i + p < n; i += need) {
      if (text.charCodeAt(i) !== text.charCodeAt(i + p)) continue;
      const start = stretchStart(text, i, p);
      const end = stretchEnd(text, i, p);
      if (end - start + 1 + p > best) {
        best = end - start + 1 + p;
        need = Math.max(1, best - p + 1);
      }
      // The next stretch starts past end + 1 (a mismatch): probing from end + need still lands in any that is long enough.
      i = end;
    }
  }
  return best;
}

/** The first position of the stretch around i where the text equals itself shifted by p. */
function stretchStart(text: string, i: number, p: number): number {
  let start = i;
  while (start > 0 && text.charCodeAt(start - 1) === text.charCodeAt(start - 1 + p)) start--;
  return start;
}

/** The last position of that stretch. */
function stretchEnd(text: string, i: number, p: number): number {
  let end = i;
  while (end + 1 + p < text.length && text.charCodeAt(end + 1) === text.charCodeAt(end + 1 + p)) end++;
  return end;
}

/**
 * Whether `repeatRun(text, maxPeriod) >= min`, without measuring every run: a run long enough has
 * `min - p` consecutive positions where the text equals itself shifted by p, and any that many
 * consecutive positions include one of every `min - p`-th, so only those are probed.
 */
export function repeatRunAtLeast(text: string, min: number, maxPeriod = 16): boolean {
  if (min <= 0) return true;
  const n = text.length;
  for (let p = 1; p <= maxPeriod; p++) {
    const need = Math.max(1, min - p);
    for (let i = need - 1; i + p < n; i += need) {
      if (text.charCodeAt(i) !== text.charCodeAt(i + p)) continue;
      const start = stretchStart(text, i, p);
      const end = stretchEnd(text, i, p);
      if (end - start + 1 >= need) return true;
      i = end - ((end - (need - 1)) % need);
    }
  }
  return false;
}
