import { readdirSync, readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import type { Rollout } from "@evotrainer/contract";
import { compileHarness, DEFAULT_HEALTH_RULES, SWE_DETECTORS } from "@evotrainer/core";
import { miniSweAgentRollout } from "./mini-swe-agent.ts";
import { sweAgentRollout } from "./swe-agent.ts";

const REAL = new URL("../../../../tests/fixtures/real/", import.meta.url);

interface Truth {
  /** Per detector, when only some rollouts were reviewed (e.g. the flagged ones): recall is then not measured. */
  scope?: Record<string, string>;
  /** Detectors known to miss their target on this data: the floor they must keep, and why they miss. */
  belowTarget?: Record<string, { floor: number; why: string }>;
  labels: Record<string, Record<string, { truth: boolean; reason: string }>>;
}

/** The real SWE trajectories as the importers read them, uid = instance id (mini-swe-agent) or swe-agent/<file>. */
function realSweRollouts(): Rollout[] {
  const lines = gunzipSync(readFileSync(new URL("mini-swe-agent-gemini-3-pro-dev150.jsonl.gz", REAL))).toString("utf8").trim().split("\n");
  const rollouts = lines.map((line, i) => miniSweAgentRollout(JSON.parse(line), { where: `line ${i + 1}` }));
  for (const file of readdirSync(new URL("swe-agent/", REAL)).sort()) {
    const json: unknown = JSON.parse(readFileSync(new URL(`swe-agent/${file}`, REAL), "utf8"));
    rollouts.push({ ...sweAgentRollout(json, { where: file, instanceId: file.replace(/\.traj$/, "") }), uid: `swe-agent/${file}` });
  }
  return rollouts;
}

describe("swe detectors against hand-checked labels of real trajectories", () => {
  it("reach the precision targets (validity ≥ 0.9, others ≥ 0.8) and never flag 1.5× what the truth holds", () => {
    const truth = JSON.parse(readFileSync(new URL("swe-detector-truth.json", REAL), "utf8")) as Truth;
    const rollouts = realSweRollouts();
    const compiled = compileHarness({ version: 1, detectors: [...SWE_DETECTORS], healthRules: [...DEFAULT_HEALTH_RULES] });
    if (!compiled.ok) throw new Error(JSON.stringify(compiled.rejections));
    const { labels, errors } = compiled.harness.label(rollouts, "swe");
    expect(errors).toEqual([]);

    const rows: string[] = ["detector            reviewed  truth  flagged  TP  precision  recall"];
    for (const [label, byUid] of Object.entries(truth.labels)) {
      const detector = SWE_DETECTORS.find((d) => d.label === label)!;
      const flagged = new Set(labels.filter((l) => l.label === label).map((l) => l.rolloutUid));
      const reviewed = Object.keys(byUid);
      expect(reviewed.every((uid) => rollouts.some((r) => r.uid === uid))).toBe(true);
      const positives = reviewed.filter((uid) => byUid[uid]!.truth);
      const flaggedReviewed = reviewed.filter((uid) => flagged.has(uid));
      const tp = flaggedReviewed.filter((uid) => byUid[uid]!.truth).length;
      // No flags and no positives is perfect precision and recall: nothing to find, nothing claimed.
      const precision = flaggedReviewed.length === 0 ? 1 : tp / flaggedReviewed.length;
      const recall = positives.length === 0 ? 1 : tp / positives.length;
      const partial = truth.scope?.[label];
      rows.push(`${label.padEnd(20)}${String(reviewed.length).padStart(8)}${String(positives.length).padStart(7)}${String(flaggedReviewed.length).padStart(9)}${String(tp).padStart(4)}${precision.toFixed(2).padStart(11)}${(partial ? "n/a" : recall.toFixed(2)).padStart(8)}${partial ? `  (${partial})` : ""}`);
      const misses = reviewed.filter((uid) => flagged.has(uid) !== byUid[uid]!.truth).map((uid) => `${uid}: truth ${byUid[uid]!.truth} (${byUid[uid]!.reason})`);
      const target = truth.belowTarget?.[label]?.floor ?? (detector.validity ? 0.9 : 0.8);
      expect.soft(precision, `${label} precision; disagreements:\n${misses.join("\n")}`).toBeGreaterThanOrEqual(target);
      if (!partial) expect.soft(flaggedReviewed.length, `${label} flags vs truth`).toBeLessThanOrEqual(Math.max(1, 1.5 * positives.length));
    }
    for (const [label, below] of Object.entries(truth.belowTarget ?? {})) rows.push(`${label}: below its target, kept at ≥ ${below.floor}: ${below.why}`);
    console.log(`swe detectors on ${rollouts.length} real trajectories (mini-swe-agent + SWE-agent):\n${rows.join("\n")}`);
  });
});
