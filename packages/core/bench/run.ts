// Throughput of the detector catalog (rollouts/s on one core) and of the backtest, each next to a
// plain-JS baseline doing the same work measured in the same run. Run: npm run bench -w @evotrainer/core
import type { Rollout, ScoredRollout } from "@evotrainer/contract";
import {
  backtest, compileHarness, CODE_DETECTORS, defaultRecipe, groupAdvantages, MATH_DETECTORS, rolloutBindings, SWE_DETECTORS,
  type DetectorDefinition, type Domain, type Recipe,
} from "../src/index.ts";
import { BASELINES } from "./baselines.ts";
import { codeRollouts, mathRollouts, rand, sweRollouts } from "./rollouts.ts";

/**
 * Times several ways of doing the same work in turns of `sliceMs` each until each has run `totalMs`:
 * a load spike on this shared machine then slows all of them, so their ratios hold while the rates move.
 */
type Rate = { perSecond: number; ms: number };
function timeInterleaved<const T extends readonly (() => number)[]>(totalMs: number, sliceMs: number, fns: T): { [K in keyof T]: Rate } {
  const spent = fns.map(() => ({ units: 0, ms: 0 }));
  while (spent.some((s) => s.ms < totalMs)) {
    fns.forEach((fn, i) => {
      const t0 = performance.now();
      while (performance.now() - t0 < sliceMs) spent[i]!.units += fn();
      spent[i]!.ms += performance.now() - t0;
    });
  }
  // One rate per function, in their order.
  return spent.map(({ units, ms }) => ({ perSecond: (units / ms) * 1000, ms })) as unknown as { [K in keyof T]: Rate };
}

const fmt = (x: number) => Math.round(x).toLocaleString("en-US");

console.log("Detector catalog, one core (single thread): closure-compiled harness, the CEL interpreter it replaced, hand-written JS");
console.log("domain  text    detectors  harness rollouts/s  interpreter rollouts/s  baseline rollouts/s  harness/baseline  targets (≥100k/s at 1 KB, ≥10k/s at 20 KB, ≥0.5× baseline)");
const catalogs: Record<Domain, readonly DetectorDefinition[]> = { math: MATH_DETECTORS, code: CODE_DETECTORS, swe: SWE_DETECTORS, custom: [] };
for (const domain of ["math", "code", "swe"] as const) {
  const compiled = compileHarness({ version: 1, detectors: [...catalogs[domain]], healthRules: [] });
  if (!compiled.ok) throw new Error(JSON.stringify(compiled.rejections));
  const harness = compiled.harness;
  for (const bytes of [1024, 20 * 1024]) {
    const make = domain === "math" ? mathRollouts : domain === "code" ? codeRollouts : sweRollouts;
    // As ingest hands rollouts over: parsed from JSON lines (flat strings), not built by concatenation.
    const rollouts: Rollout[] = JSON.parse(JSON.stringify(make(bytes > 2048 ? 40 : 400, bytes)));
    // The baseline must make the catalog's decisions, or the ratio compares different work.
    const labels = harness.label(rollouts, domain).labels.length;
    const baselineLabels = rollouts.reduce((n, r) => n + BASELINES[domain](r), 0);
    if (labels !== baselineLabels) throw new Error(`${domain} ${bytes} B: the harness flags ${labels} times, the hand-written baseline ${baselineLabels}`);
    const active = harness.detectors.filter((d) => d.definition.domains.includes(domain));
    const [{ perSecond: cel }, { perSecond: interpreted }, { perSecond: js }] = timeInterleaved(1500, 100, [
      () => (harness.label(rollouts, domain), rollouts.length),
      // The reference path: every predicate (and the evidence of hits) through @bufbuild/cel's interpreter.
      () => {
        let hits = 0;
        for (const r of rollouts) {
          const b = rolloutBindings(r);
          for (const d of active) {
            const hit = d.when.interpret(b);
            if (hit.ok && hit.value === true) hits += d.evidence?.interpret(b).ok ? 1 : 0;
          }
        }
        return hits >= 0 ? rollouts.length : 0;
      },
      () => {
        let s = 0;
        for (const r of rollouts) s += BASELINES[domain](r);
        return s >= 0 ? rollouts.length : 0;
      },
    ]);
    const target = bytes > 2048 ? 10_000 : 100_000;
    const ratio = cel / js;
    const verdict = `${cel >= target ? "rate ok" : "RATE MISSED"}, ${ratio >= 0.5 ? "ratio ok" : "RATIO MISSED"}`;
    console.log(
      `${domain.padEnd(7)} ${`${bytes / 1024} KB`.padEnd(7)} ${String(catalogs[domain].length).padStart(9)}  ${fmt(cel).padStart(18)}  ${fmt(interpreted).padStart(22)}  ${fmt(js).padStart(19)}  ${ratio.toFixed(2).padStart(16)}  ${verdict}`,
    );
  }
}

console.log("\nBacktest on 100,000 rollouts (12,500 groups of 8), one core");
const parent = defaultRecipe();
const candidate: Recipe = structuredClone(parent);
candidate.reward.components.format!.weight = 0.2;
const big: ScoredRollout[] = Array.from({ length: 100_000 }, (_, i) => {
  const correctness = rand() < 0.3 ? 1 : 0;
  return {
    uid: `b${i}`, split: "train", step: 1, taskId: `t${i >> 3}`, groupId: `g${i >> 3}`, sample: i & 7, prompt: "", response: "",
    reward: correctness, rewardComponents: { correctness, format: rand() < 0.7 ? 1 : 0 }, responseTokens: Math.floor(rand() * 5000), turns: 1, truncated: false,
  };
});
const labels = big.filter((_, i) => i % 5 === 0).map((r) => ({ rolloutUid: r.uid, label: "format_error", detectorId: "math.format_error", detectorVersion: 1, validity: false, evidence: null }));
const intervention = { targetMetric: "dead_group_ratio", expectedEffect: { direction: "down" as const } };
let report = backtest({ parent, candidate, rollouts: big, labels, intervention });
const [bt, baseline] = timeInterleaved(3000, 300, [
  () => ((report = backtest({ parent, candidate, rollouts: big, labels, intervention })), big.length),
  // Baseline: only the irreducible part, grouping plus GRPO advantages with and without std scaling.
  () => {
    const groups = new Map<string, number[]>();
    for (const r of big) {
      const g = groups.get(r.groupId);
      if (g) g.push(r.reward);
      else groups.set(r.groupId, [r.reward]);
    }
    let s = 0;
    for (const rewards of groups.values()) s += groupAdvantages(rewards, true).length + groupAdvantages(rewards, false).length;
    return s > 0 ? big.length : 0;
  },
]);
console.log(`backtest            ${fmt(bt.perSecond)} rollouts/s (${(100_000 / bt.perSecond * 1000).toFixed(0)} ms per 100k)`);
console.log(`baseline (GRPO adv) ${fmt(baseline.perSecond)} rollouts/s (${(100_000 / baseline.perSecond * 1000).toFixed(0)} ms per 100k)`);
console.log(`backtest/baseline   ${(bt.perSecond / baseline.perSecond).toFixed(2)}`);
console.log(`(dead groups ${report.deadGroups.before} → ${report.deadGroups.after}, filtered ${report.deadGroups.filteredOut.after}, rescued ${report.deadGroups.rescued}, ordering violations introduced ${report.orderingViolations.introduced})`);
