/**
 * Share of word n-grams that repeat an earlier one (0 = all distinct, near 1 = a loop). Numbers are
 * collapsed first because a loop usually keeps counting ("On the 7th day … On the 8th day …").
 * Texts too short to show a loop score 0.
 */
export function ngramRepeatRatio(text: string, n: number): number {
  if (n < 1) return 0;
  const words = text.toLowerCase().replace(/\d+/g, "0").split(/\s+/).filter((w) => w !== "");
  const total = words.length - n + 1;
  if (words.length < n + 8) return 0;
  const seen = new Set<string>();
  for (let i = 0; i < total; i++) seen.add(words.slice(i, i + n).join(" "));
  return 1 - seen.size / total;
}

/**
 * Length of the longest stretch of text made of one short unit (up to `maxPeriod` characters)
 * repeated back to back: catches "333333…" or "181818…" loops that have no word boundaries.
 */
export function repeatRun(text: string, maxPeriod = 16): number {
  let best = 0;
  for (let p = 1; p <= maxPeriod; p++) {
    let run = 0;
    for (let i = 0; i + p < text.length; i++) {
      if (text.charCodeAt(i) === text.charCodeAt(i + p)) {
        run++;
        if (run + p > best) best = run + p;
      } else {
        run = 0;
      }
    }
  }
  return best;
}
