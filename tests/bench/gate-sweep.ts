// bench:gate --sweep: independent null runs of every variant in GATE_VARIANTS, trained and judged as
// the worker runs them, one row per variant printed as soon as it is measured. The target, each
// variant: the Wilson interval's upper end at most 8%, or every round sent to a person with the reason.
import { runGateTrials } from "@evotrainer/gym";
import { loadRunConfig } from "../loop/run-config.ts";
import { GATE_VARIANTS } from "./gate-variants.ts";

const TARGET_UPPER = 0.08;

export interface SweepRow {
  variant: string;
  runs: number;
  falseRuns: number;
  interval: [number, number];
  rounds: number;
  judgedRounds: number;
  toPerson: number;
  reasons: string[];
  meetsTarget: boolean;
  seconds: number;
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

export function runSweep(o: { runs: number; seed: number; only?: string[] }): SweepRow[] {
  const variants = o.only ? GATE_VARIANTS.filter((v) => o.only!.includes(v.name)) : GATE_VARIANTS;
  if (o.only && variants.length !== o.only.length) {
    throw new Error(`unknown variant(s): ${o.only.filter((n) => !GATE_VARIANTS.some((v) => v.name === n)).join("; ")}. Known: ${GATE_VARIANTS.map((v) => v.name).join("; ")}`);
  }
  console.log(`gate sweep: ${o.runs} independent null runs per variant, seed ${o.seed}; target: Wilson 95% upper end ≤ ${pct(TARGET_UPPER)}, or every round to a person`);
  const rows: SweepRow[] = [];
  for (const variant of variants) {
    const config = loadRunConfig(`examples/gym-${variant.domain}.yaml`, variant.change);
    const r = runGateTrials(config, {
      runs: o.runs,
      powerRuns: 0,
      seed: o.seed,
      onRun: (done, total, nulls) => {
        if (done % 10 === 0 || done === total) process.stderr.write(`  ${variant.name}: ${done}/${total} runs; false promotions so far ${nulls.falseRuns}\n`);
      },
    });
    const rounds = r.judgedRounds + r.toPerson;
    const allToPerson = rounds > 0 && r.judgedRounds === 0;
    const row: SweepRow = {
      variant: variant.name,
      runs: r.falsePromotion.n,
      falseRuns: r.falsePromotion.k,
      interval: r.falsePromotion.interval,
      rounds,
      judgedRounds: r.judgedRounds,
      toPerson: r.toPerson,
      reasons: r.toPersonReasons,
      meetsTarget: r.falsePromotion.interval[1] <= TARGET_UPPER || allToPerson,
      seconds: r.seconds,
    };
    rows.push(row);
    const [lo, hi] = row.interval;
    console.log(
      `${row.meetsTarget ? "meets " : "MISSES"} ${variant.name.padEnd(40)} false promotion ${row.falseRuns}/${row.runs} = ${pct(row.falseRuns / Math.max(row.runs, 1))} (95% Wilson ${pct(lo)}–${pct(hi)}); rounds to a person ${row.toPerson}/${rounds} = ${pct(row.toPerson / Math.max(rounds, 1))} (${r.seconds.toFixed(0)} s)`,
    );
    for (const reason of row.reasons.slice(0, 2)) console.log(`         to a person: ${reason}`);
  }
  const missed = rows.filter((r) => !r.meetsTarget);
  console.log(`\n${rows.length - missed.length} of ${rows.length} variants meet the target${missed.length ? `; missed: ${missed.map((r) => r.variant).join("; ")}` : ""}`);
  return rows;
}
