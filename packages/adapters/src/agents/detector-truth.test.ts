import { readdirSync, readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import type { Rollout } from "@evotrainer/contract";
import { compileHarness, DEFAULT_HEALTH_RULES, SWE_DETECTORS } from "@evotrainer/core";
import { miniSweAgentRollout } from "./mini-swe-agent.ts";
import { sweAgentRollout } from "./swe-agent.ts";

const REAL = new URL("../../../../tests/fixtures/real/", import.meta.url);
/** The issue's review size: at least this many flagged and unflagged rollouts per detector, or all there are. */
const MIN_REVIEWED = 30;

interface Truth {
  /** Per detector, which rollouts were reviewed when not all of them were. */
  scope?: Record<string, string>;
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

    const rows: string[] = ["detector            flagged  reviewed(f/u)  truth(est.)  TP  precision  recall"];
    for (const [label, byUid] of Object.entries(truth.labels)) {
      const detector = SWE_DETECTORS.find((d) => d.label === label)!;
      const flagged = new Set(labels.filter((l) => l.label === label).map((l) => l.rolloutUid));
      const reviewed = Object.keys(byUid);
      expect(reviewed.every((uid) => rollouts.some((r) => r.uid === uid))).toBe(true);
      const reviewedFlagged = reviewed.filter((uid) => flagged.has(uid));
      const reviewedUnflagged = reviewed.filter((uid) => !flagged.has(uid));
      const unflaggedCount = rollouts.length - flagged.size;
      expect.soft(reviewedFlagged.length, `${label}: flagged rollouts reviewed`).toBeGreaterThanOrEqual(Math.min(MIN_REVIEWED, flagged.size));
      expect.soft(reviewedUnflagged.length, `${label}: unflagged rollouts reviewed`).toBeGreaterThanOrEqual(Math.min(MIN_REVIEWED, unflaggedCount));
      // Each stratum (flagged, unflagged) is a sample of its own size: weight it back to the whole set.
      const wFlagged = reviewedFlagged.length === 0 ? 0 : flagged.size / reviewedFlagged.length;
      const wUnflagged = reviewedUnflagged.length === 0 ? 0 : unflaggedCount / reviewedUnflagged.length;
      const tp = reviewedFlagged.filter((uid) => byUid[uid]!.truth).length;
      const fn = reviewedUnflagged.filter((uid) => byUid[uid]!.truth).length;
      const positives = wFlagged * tp + wUnflagged * fn;
      // No flags and no positives is perfect precision and recall: nothing to find, nothing claimed.
      const precision = reviewedFlagged.length === 0 ? 1 : tp / reviewedFlagged.length;
      const recall = positives === 0 ? 1 : (wFlagged * tp) / positives;
      rows.push(
        `${label.padEnd(20)}${String(flagged.size).padStart(7)}${`${reviewedFlagged.length}/${reviewedUnflagged.length}`.padStart(15)}${positives.toFixed(1).padStart(13)}${String(tp).padStart(4)}${precision.toFixed(2).padStart(11)}${recall.toFixed(2).padStart(8)}${truth.scope?.[label] ? `  (${truth.scope[label]})` : ""}`,
      );
      const misses = reviewed.filter((uid) => flagged.has(uid) !== byUid[uid]!.truth).map((uid) => `${uid}: truth ${byUid[uid]!.truth} (${byUid[uid]!.reason})`);
      expect.soft(precision, `${label} precision; disagreements:\n${misses.join("\n")}`).toBeGreaterThanOrEqual(detector.validity ? 0.9 : 0.8);
      expect.soft(flagged.size, `${label} flags vs truth`).toBeLessThanOrEqual(Math.max(1, 1.5 * positives));
    }
    console.log(`swe detectors on ${rollouts.length} real trajectories (mini-swe-agent + SWE-agent):\n${rows.join("\n")}`);
  });
});
