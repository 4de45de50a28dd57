/**
 * Share of word n-grams that repeat an earlier one (0 = all distinct, near 1 = a loop). Numbers are
 * collapsed first because a loop usually keeps counting ("On the 7th day … On the 8th day …").
 * Texts too short to show a loop score 0.
 */
export function ngramRepeatRatio(text: string, n: number): number {
  if (n < 1) return 0;
  const words = text.toLowerCase().replace(/\d+/g, "0").split(/\s+/).filter((w) => w !== "");
  if (words.length < n + 8) return 0;
  // Words become small integers, n-grams a 53-bit hash of them: no string per n-gram.
  const ids = new Map<string, number>();
  const seq = new Int32Array(words.length);
  words.forEach((w, i) => {
    let id = ids.get(w);
    if (id === undefined) ids.set(w, (id = ids.size));
    seq[i] = id;
  });
  const total = words.length - n + 1;
  const seen = new Set<number>();
  for (let i = 0; i < total; i++) {
    let h1 = 0x811c9dc5;
    let h2 = 0x9747b28c;
    for (let k = 0; k < n; k++) {
      h1 = Math.imul(h1 ^ seq[i + k]!, 0x01000193);
      h2 = Math.imul(h2 ^ seq[i + k]!, 0x5bd1e995) ^ (h2 >>> 13);
    }
    seen.add((h1 >>> 0) * 0x200000 + (h2 & 0x1fffff));
  }
  return 1 - seen.size / total;
}

/**
 * Length of the longest stretch of text made of one short unit (up to `maxPeriod` characters)
 * repeated back to back: catches "333333…" or "181818…" loops that have no word boundaries.
 */
export function repeatRun(text: string, maxPeriod = 16): number {
  const n = text.length;
  const codes = new Uint16Array(n);
  for (let i = 0; i < n; i++) codes[i] = text.charCodeAt(i);
  let best = 0;
  for (let p = 1; p <= maxPeriod; p++) {
    let run = 0;
    for (let i = 0; i + p < n; i++) {
      if (codes[i] === codes[i + p]) {
        run++;
      } else {
        if (run + p > best && run > 0) best = run + p;
        run = 0;
      }
    }
    if (run > 0 && run + p > best) best = run + p;
  }
  return best;
}
