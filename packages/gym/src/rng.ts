import { seededRandom } from "@evotrainer/core";

/** A seeded random stream with the few draws the gym needs. */
export interface Rng {
  next(): number;
  /** Integer in [lo, hi], both ends included. */
  int(lo: number, hi: number): number;
  pick<T>(items: readonly T[]): T;
  chance(p: number): boolean;
}

/**
 * A stream keyed by names (seed, split, step, task, sample…), so every draw is reproducible on its
 * own: resuming at step 17 or evaluating another branch replays exactly the same randomness.
 */
export function rngFor(...key: readonly (string | number)[]): Rng {
  const next = seededRandom(hashKey(key.join("\u0000")));
  return {
    next,
    int: (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)),
    pick: (items) => items[Math.floor(next() * items.length)]!,
    chance: (p) => next() < p,
  };
}

// FNV-1a, 32 bits: enough to decorrelate the streams, and stable across platforms.
function hashKey(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** A short hex id (commit shas and the like) drawn from the stream. */
export function hexId(rng: Rng, length: number): string {
  let out = "";
  for (let i = 0; i < length; i++) out += "0123456789abcdef"[rng.int(0, 15)];
  return out;
}
