// Throughput of the detector catalog (rollouts/s on one core) and of the backtest, each next to a
// plain-JS baseline doing the same work measured in the same run. Run: npm run bench -w @evotrainer/core
import type { Rollout } from "@evotrainer/contract";
import {
  answersEqual, backtest, codeBlock, compileHarness, CODE_DETECTORS, defaultRecipe, finalAnswer, groupAdvantages,
  MATH_DETECTORS, ngramRepeatRatio, patchFiles, repeatRunAtLeast, rolloutBindings, scriptMix, seededRandom, SWE_DETECTORS,
  type DetectorDefinition, type Domain, type Recipe,
} from "../src/index.ts";

const rand = seededRandom(20240601);
const WORDS = ["the", "total", "is", "so", "she", "has", "eggs", "each", "day", "and", "sells", "remaining", "for", "dollars", "then", "we", "multiply", "by", "add", "cost"];

function prose(bytes: number): string {
  let s = "";
  while (s.length < bytes) {
    const a = Math.floor(rand() * 100);
    const b = Math.floor(rand() * 100);
    s += `${Array.from({ length: 8 }, () => WORDS[Math.floor(rand() * WORDS.length)]).join(" ")} ${a} + ${b} = <<${a}+${b}=${a + b}>>${a + b}.\n`;
  }
  return s.slice(0, bytes);
}

function base(i: number, response: string, extra: Partial<Rollout> = {}): Rollout {
  return {
    uid: `r${i}`, split: "train", step: 1, taskId: `t${i >> 3}`, groupId: `t${i >> 3}`, sample: i & 7, prompt: "Solve it.",
    response, reward: rand() < 0.5 ? 1 : 0, rewardComponents: {}, responseTokens: Math.ceil(response.length / 4), turns: 1, truncated: false, ...extra,
  };
}

function mathRollouts(n: number, bytes: number): Rollout[] {
  return Array.from({ length: n }, (_, i) => base(i, `${prose(bytes - 8)}\nA: ${i % 50}`, { groundTruth: String(i % 40) }));
}
function codeRollouts(n: number, bytes: number): Rollout[] {
  return Array.from({ length: n }, (_, i) => {
    const body = prose(bytes - 80).split("\n").map((l) => `    # ${l}`).join("\n");
    const status = ["Wrong Answer", "Time Limit Exceeded", "Runtime Error", undefined][i % 4];
    return base(i, `\`\`\`python\nimport sys\ndef main():\n${body}\n    print(int(sys.stdin.readline()) * 2)\n\`\`\``, {
      testResults: { passed: status ? 0 : 3, total: 3, ...(status ? { status } : {}) },
    });
  });
}
function sweRollouts(n: number, bytes: number): Rollout[] {
  return Array.from({ length: n }, (_, i) => {
    const turns: NonNullable<Rollout["trajectory"]> = [{ role: "user", content: "Fix the bug." }];
    let size = 0;
    for (let k = 0; size < bytes; k++) {
      const content = prose(400);
      size += content.length + 60;
      turns.push({ role: "assistant", content, toolCalls: [{ name: k % 3 === 0 ? "str_replace_editor" : "bash", arguments: { cmd: k % 3 === 1 ? "python -m pytest -q" : `cat src/mod${k}.py` } }] });
      turns.push({ role: "tool", content: prose(200), toolName: "bash", isError: k % 7 === 6 });
    }
    const patch = "diff --git a/src/a.py b/src/a.py\n--- a/src/a.py\n+++ b/src/a.py\n@@ -1 +1 @@\n-x\n+y\n";
    return { ...base(i, "", {}), response: undefined, trajectory: turns, turns: turns.length, extra: { patch } };
  });
}

// The same decisions written directly in JS (no CEL, no guards, no caps): what the harness costs.
const BASELINES: Record<Exclude<Domain, "custom">, (r: Rollout) => number> = {
  math: (r) => {
    const t = r.response ?? "";
    const gt = typeof r.groundTruth === "string" ? r.groundTruth : "";
    const fa = finalAnswer(t);
    return [
      r.truncated || r.finishReason === "length",
      /\S/.test(t) && fa === "",
      ngramRepeatRatio(t, 4) >= 0.5 || repeatRunAtLeast(t, 64),
      gt !== "" && !answersEqual(fa, finalAnswer(gt) || gt),
      !/\S/.test(t),
      scriptMix(t) >= 0.05,
    ].filter(Boolean).length;
  },
  code: (r) => {
    const s = `${r.testResults?.status ?? ""} ${r.testResults?.message ?? ""}`;
    const code = codeBlock(r.response ?? "");
    return [
      /compil|syntax|indentationerror/i.test(s),
      /runtime error|error during testing/i.test(s),
      /time limit|timeout/i.test(s),
      (r.testResults?.passed ?? 0) < (r.testResults?.total ?? 0) && /wrong answer/i.test(s),
      !/input\s*\(|stdin|argv|open\s*\(/.test(code) && /print\s*\(/.test(code),
    ].filter(Boolean).length;
  },
  swe: (r) => {
    const calls = (r.trajectory ?? []).flatMap((t) => t.toolCalls ?? []).map((c) => `${c.name} ${JSON.stringify(c.arguments)}`);
    const files = patchFiles(String(r.extra?.patch ?? ""));
    let run = 1;
    let best = calls.length ? 1 : 0;
    for (let i = 1; i < calls.length; i++) best = Math.max(best, (run = calls[i] === calls[i - 1] ? run + 1 : 1));
    const lastEdit = calls.findLastIndex((c) => /^str_replace/.test(c));
    const lastTest = calls.findLastIndex((c) => /pytest/.test(c));
    return [
      files.length === 0,
      files.some((f) => /(^|\/)tests?\//.test(f)) || calls.some((c) => /(sed -i|str_replace).*tests?\//.test(c)),
      calls.some((c) => /git\s+(log\s+--all|reflog|fetch)/.test(c)),
      (r.trajectory ?? []).some((t) => t.isError),
      best >= 3,
      lastEdit >= 0 && lastTest < lastEdit,
      files.length === 0 && calls.length < 3,
    ].filter(Boolean).length;
  },
};

function timeIt(minMs: number, fn: () => number): { perSecond: number; ms: number } {
  let units = 0;
  const t0 = performance.now();
  while (performance.now() - t0 < minMs) units += fn();
  const ms = performance.now() - t0;
  return { perSecond: (units / ms) * 1000, ms };
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
    harness.label(rollouts.slice(0, 20), domain);
    const cel = timeIt(1500, () => (harness.label(rollouts, domain), rollouts.length));
    // The reference path: every predicate (and the evidence of hits) through @bufbuild/cel's interpreter.
    const active = harness.detectors.filter((d) => d.definition.domains.includes(domain));
    const interpreted = timeIt(1500, () => {
      let hits = 0;
      for (const r of rollouts) {
        const b = rolloutBindings(r);
        for (const d of active) {
          const hit = d.when.interpret(b);
          if (hit.ok && hit.value === true) hits += d.evidence?.interpret(b).ok ? 1 : 0;
        }
      }
      return hits >= 0 ? rollouts.length : 0;
    });
    const js = timeIt(1500, () => {
      let s = 0;
      for (const r of rollouts) s += BASELINES[domain](r);
      return s >= 0 ? rollouts.length : 0;
    });
    const target = bytes > 2048 ? 10_000 : 100_000;
    const ratio = cel.perSecond / js.perSecond;
    const verdict = `${cel.perSecond >= target ? "rate ok" : "RATE MISSED"}, ${ratio >= 0.5 ? "ratio ok" : "RATIO MISSED"}`;
    console.log(
      `${domain.padEnd(7)} ${`${bytes / 1024} KB`.padEnd(7)} ${String(catalogs[domain].length).padStart(9)}  ${fmt(cel.perSecond).padStart(18)}  ${fmt(interpreted.perSecond).padStart(22)}  ${fmt(js.perSecond).padStart(19)}  ${ratio.toFixed(2).padStart(16)}  ${verdict}`,
    );
  }
}

console.log("\nBacktest on 100,000 rollouts (12,500 groups of 8), one core");
const parent = defaultRecipe();
const candidate: Recipe = structuredClone(parent);
candidate.reward.components.format!.weight = 0.2;
const big: Rollout[] = Array.from({ length: 100_000 }, (_, i) => {
  const correctness = rand() < 0.3 ? 1 : 0;
  return {
    uid: `b${i}`, split: "train", step: 1, taskId: `t${i >> 3}`, groupId: `g${i >> 3}`, sample: i & 7, prompt: "", response: "",
    reward: correctness, rewardComponents: { correctness, format: rand() < 0.7 ? 1 : 0 }, responseTokens: Math.floor(rand() * 5000), turns: 1, truncated: false,
  };
});
const labels = big.filter((_, i) => i % 5 === 0).map((r) => ({ rolloutUid: r.uid, label: "format_error", detectorId: "math.format_error", detectorVersion: 1, validity: false, evidence: null }));
const intervention = { targetMetric: "dead_group_ratio", expectedEffect: { direction: "down" as const } };
let report = backtest({ parent, candidate, rollouts: big, labels, intervention });
const bt = timeIt(3000, () => ((report = backtest({ parent, candidate, rollouts: big, labels, intervention })), big.length));
// Baseline: only the irreducible part, grouping plus GRPO advantages with and without std scaling.
const baseline = timeIt(3000, () => {
  const groups = new Map<string, number[]>();
  for (const r of big) {
    const g = groups.get(r.groupId);
    if (g) g.push(r.reward);
    else groups.set(r.groupId, [r.reward]);
  }
  let s = 0;
  for (const rewards of groups.values()) s += groupAdvantages(rewards, true).length + groupAdvantages(rewards, false).length;
  return s > 0 ? big.length : 0;
});
console.log(`backtest            ${fmt(bt.perSecond)} rollouts/s (${(100_000 / bt.perSecond * 1000).toFixed(0)} ms per 100k)`);
console.log(`baseline (GRPO adv) ${fmt(baseline.perSecond)} rollouts/s (${(100_000 / baseline.perSecond * 1000).toFixed(0)} ms per 100k)`);
console.log(`backtest/baseline   ${(bt.perSecond / baseline.perSecond).toFixed(2)}`);
console.log(`(dead groups ${report.deadGroups.before} → ${report.deadGroups.after}, filtered ${report.deadGroups.filteredOut.after}, rescued ${report.deadGroups.rescued}, ordering violations introduced ${report.orderingViolations.introduced})`);
