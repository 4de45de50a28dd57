export const fmtScore = (x: number | null | undefined) => (x === null || x === undefined ? "—" : x.toFixed(3));

/** A rollout's reward: null is a result nobody recorded (an imported trajectory the harness never scored), not a failure. */
export const fmtReward = (x: number | null) => (x === null ? "unknown" : fmtScore(x));

/** A change with its sign; a whole-number change (counts) stays a whole number. */
export const fmtDelta = (x: number | null | undefined) =>
  x === null || x === undefined ? "—" : `${x >= 0 ? "+" : ""}${Number.isInteger(x) ? String(x) : x.toFixed(3)}`;

/**
 * Any measured number as a person reads it: whole numbers stay whole, others keep four significant
 * digits with trailing zeros dropped (0.4583333 → 0.4583, 0.0500 → 0.05).
 */
export const fmtNumber = (x: number | null | undefined) => (x === null || x === undefined ? "—" : Number.isInteger(x) ? String(x) : String(Number(x.toPrecision(4))));

export const fmtTime = (d: Date | string | null | undefined) => (d ? new Date(d).toISOString().slice(0, 19).replace("T", " ") : "—");

export function budgetSeconds(budget: unknown): number | null {
  const value = (budget as { gpuSeconds?: unknown } | null)?.gpuSeconds;
  return typeof value === "number" ? value : null;
}

export const branchPath = (base: string, branchId: string) => `${base}/branches/${branchId}`;

/** Estimated LLM dollars: cents matter, and a local model costs exactly nothing. */
export const fmtDollars = (x: number | null | undefined) => (x === null || x === undefined ? "—" : x === 0 ? "$0" : x < 0.01 ? `$${x.toFixed(4)}` : `$${x.toFixed(2)}`);

export const fmtTokens = (n: number) => (n >= 10_000 ? `${Math.round(n / 1000)}k` : String(n));
