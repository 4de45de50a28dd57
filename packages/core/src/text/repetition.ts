import { asciiBytes, codeUnits } from "./ascii.ts";

/**
 * Share of word n-grams that repeat an earlier one (0 = all distinct, near 1 = a loop). Numbers are
 * collapsed first because a loop usually keeps counting ("On the 7th day … On the 8th day …").
 * Texts too short to show a loop score 0.
 */
export function ngramRepeatRatio(text: string, n: number): number {
  if (n < 1) return 0;
  const bytes = asciiBytes(text);
  const words = bytes ? asciiWordHashes(bytes) : wordHashesOf(text);
  const count = words.length / 2;
  if (count < n + 8) return 0;
  const total = count - n + 1;
  return 1 - distinctNgrams(words, n, total) / total;
}

// A word is two 32-bit hashes of its characters (lower-cased, digit runs as one "0"): no string per word.
// The seeds are int32 (`| 0`): a seed above 2^31 is a double, and the hash loops would run on doubles.
const FNV1 = 0x811c9dc5 | 0;
const FNV2 = 0x9747b28c | 0;
let wordBuffer = new Int32Array(1024);

/** The word buffer, with room for `words` words: grown before a loop, so the loop only stores. */
function wordRoom(words: number): Int32Array {
  if (2 * words > wordBuffer.length) wordBuffer = new Int32Array(Math.max(2 * words, 2 * wordBuffer.length));
  return wordBuffer;
}

// What a byte is to a word, in one table lookup instead of a chain of comparisons: the byte
// lower-cased (one bit in ASCII), or, in place of the upper-case letters that lower-casing frees,
// SPACE for whitespace (JavaScript's `\s` in ASCII is [\t\n\v\f\r ]) and DIGIT for a digit.
const SPACE = 65;
const DIGIT = 66;
const WORD_BYTE = new Uint8Array(128);
for (let c = 0; c < 128; c++) WORD_BYTE[c] = c === 32 || (c >= 9 && c <= 13) ? SPACE : c >= 48 && c <= 57 ? DIGIT : c >= 65 && c <= 90 ? c + 32 : c;

/** The ASCII path, over the text's bytes: each word hashed as it is read, a digit run as one "0". */
function asciiWordHashes(text: Uint8Array): Int32Array {
  const n = text.length;
  // A word takes a byte and the space after it.
  const out = wordRoom((n + 1) >> 1);
  let count = 0;
  let i = 0;
  while (i < n) {
    let k = WORD_BYTE[text[i]!]!;
    if (k === SPACE) {
      i++;
      continue;
    }
    let h1 = FNV1;
    let h2 = FNV2;
    do {
      const c = k === DIGIT ? 48 : k;
      h1 = Math.imul(h1 ^ c, 0x01000193);
      h2 = Math.imul(h2 ^ c, 0x5bd1e995) ^ (h2 >>> 13);
      do k = ++i < n ? WORD_BYTE[text[i]!]! : SPACE;
      while (k === DIGIT && c === 48);
    } while (k !== SPACE);
    out[2 * count] = h1;
    out[2 * count + 1] = h2;
    count++;
  }
  return wordBuffer.subarray(0, 2 * count);
}

/** Any text: Unicode lower-casing and whitespace as the string methods define them. */
function wordHashesOf(text: string): Int32Array {
  const words = text.toLowerCase().replace(/\d+/g, "0").split(/\s+/);
  const out = wordRoom(words.length);
  let count = 0;
  for (const w of words) {
    if (w === "") continue;
    let h1 = FNV1;
    let h2 = FNV2;
    for (let i = 0; i < w.length; i++) {
      const c = w.charCodeAt(i);
      h1 = Math.imul(h1 ^ c, 0x01000193);
      h2 = Math.imul(h2 ^ c, 0x5bd1e995) ^ (h2 >>> 13);
    }
    out[2 * count] = h1;
    out[2 * count + 1] = h2;
    count++;
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
  const units = codeUnits(text);
  const n = units.length;
  let best = 0;
  for (let p = maxPeriod; p >= 1; p--) {
    let need = Math.max(1, best - p + 1);
    for (let i = need - 1; i + p < n; i += need) {
      if (units[i] !== units[i + p]) continue;
      const start = stretchStart(units, i, p);
      const end = stretchEnd(units, i, p);
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

type Units = Uint8Array | Uint16Array;

/** The first position of the stretch around i where the text equals itself shifted by p. */
function stretchStart(units: Units, i: number, p: number): number {
  let start = i;
  while (start > 0 && units[start - 1] === units[start - 1 + p]) start--;
  return start;
}

/** The last position of that stretch. */
function stretchEnd(units: Units, i: number, p: number): number {
  let end = i;
  while (end + 1 + p < units.length && units[end + 1] === units[end + 1 + p]) end++;
  return end;
}

/**
 * Whether `repeatRun(text, maxPeriod) >= min`, without measuring every run: a run long enough has
 * `min - p` consecutive positions where the text equals itself shifted by p, and any that many
 * consecutive positions include one of every `min - p`-th, so only those are probed.
 */
export function repeatRunAtLeast(text: string, min: number, maxPeriod = 16): boolean {
  if (min <= 0) return true;
  const units = codeUnits(text);
  const n = units.length;
  for (let p = 1; p <= maxPeriod; p++) {
    const need = Math.max(1, min - p);
    for (let i = need - 1; i + p < n; i += need) {
      if (units[i] !== units[i + p]) continue;
      const start = stretchStart(units, i, p);
      const end = stretchEnd(units, i, p);
      if (end - start + 1 >= need) return true;
      i = end - ((end - (need - 1)) % need);
    }
  }
  return false;
}
