// Bookkeeping of the test itself (its p-value, degrees of freedom, its place in Holm's order), not something measured.
const BOOKKEEPING = new Set(["p", "pNotBetter", "df", "noiseDf", "holmRank", "holmLevel", "family", "tasks", "controls", "margin", "limit"]);

/** True when a comparison measured no difference and no spread at all: the strip of zeros is said in words instead. */
export function nothingMeasured(numbers: Record<string, unknown>): boolean {
  const measured = Object.entries(numbers).filter(([k, v]) => typeof v === "number" && !BOOKKEEPING.has(k));
  return typeof numbers.delta === "number" && measured.every(([, v]) => v === 0);
}
