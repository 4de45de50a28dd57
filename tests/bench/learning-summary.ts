import { studentTQuantileUpper } from "@evotrainer/core";

/** One seed of bench:learning, as `--out` writes it. Scores are sealed-split accuracies in [0, 1]. */
export interface SeedResult {
  seed: number;
  base: number;
  referenceEqualSteps: number;
  referenceEqualCompute: number;
  loop: number;
  promoted: string[];
  cpuSeconds: { reference: number; loop: number };
  /** Optimizer steps: the loop's promoted lineage (the equal-steps reference) and all it trained (equal compute). */
  steps: { lineage: number; total: number };
  /** Training reward by optimizer step: the equal-compute reference, and the loop's lineage end to end. */
  curves: { reference: [number, number][]; loop: [number, number][] };
}

interface Interval {
  mean: number;
  low: number | null;
  high: number | null;
}

/** The mean and its 95% t interval (null bounds for one value: no spread to measure). */
export function tInterval(xs: readonly number[]): Interval {
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  if (xs.length < 2) return { mean, low: null, high: null };
  const sd = Math.sqrt(xs.reduce((a, x) => a + (x - mean) ** 2, 0) / (xs.length - 1));
  const half = studentTQuantileUpper(0.025, xs.length - 1) * (sd / Math.sqrt(xs.length));
  return { mean, low: mean - half, high: mean + half };
}

const f = (x: number) => x.toFixed(3);
const interval = (i: Interval) => (i.low === null ? `${f(i.mean)} (one seed)` : `${f(i.mean)} [${f(i.low)}, ${f(i.high!)}]`);

/** The table bench:learning prints: a row per arm, its mean over the seeds and the loop's paired difference. */
export function summaryTable(rows: readonly SeedResult[]): string[] {
  const arms = [
    ["SFT base", (r: SeedResult) => r.base],
    ["reference, equal steps", (r: SeedResult) => r.referenceEqualSteps],
    ["reference, equal total compute", (r: SeedResult) => r.referenceEqualCompute],
    ["loop", (r: SeedResult) => r.loop],
  ] as const;
  const lines = [
    `| arm | ${rows.map((r) => `seed ${r.seed}`).join(" | ")} | mean [95% t] | loop − arm, paired [95% t] |`,
    `|---|${rows.map(() => "---|").join("")}---|---|`,
  ];
  for (const [name, of] of arms) {
    const paired = name === "loop" ? "" : interval(tInterval(rows.map((r) => r.loop - of(r))));
    lines.push(`| ${name} | ${rows.map((r) => f(of(r))).join(" | ")} | ${interval(tInterval(rows.map(of)))} | ${paired} |`);
  }
  lines.push("");
  for (const r of rows) {
    lines.push(`seed ${r.seed}: ${r.steps.lineage} steps in the promoted lineage, ${r.steps.total} trained in all; CPU s loop ${r.cpuSeconds.loop.toFixed(0)}, reference ${r.cpuSeconds.reference.toFixed(0)}; promoted: ${r.promoted.join(", ") || "nothing"}`);
  }
  const wins = rows.filter((r) => r.loop >= r.referenceEqualCompute).length;
  lines.push(`loop ≥ reference at equal total compute in ${wins} of ${rows.length} seeds; reference (equal compute) > base in ${rows.filter((r) => r.referenceEqualCompute > r.base).length} of ${rows.length}`);
  return lines;
}
