/**
 * verl's metric names (which the gym and TRL's logs map onto) for the signals health rules read
 * under short names: `trainer['entropy']`, `trainer['kl']`, `trainer['clip_fraction']`.
 */
const SHORT_NAMES: Record<string, string> = {
  "actor/entropy": "entropy",
  "actor/kl_loss": "kl",
  "actor/pg_clipfrac": "clip_fraction",
};

/** A step's trainer metrics with the short names added (the originals stay, for charts and rules alike). */
export function trainerMetrics(logged: Record<string, number>): Record<string, number> {
  const out = { ...logged };
  for (const [long, short] of Object.entries(SHORT_NAMES)) {
    if (long in logged && !(short in logged)) out[short] = logged[long]!;
  }
  return out;
}
