import { readdirSync, readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import type { Rollout } from "@evotrainer/contract";
import { compileHarness, DEFAULT_HEALTH_RULES, SWE_DETECTORS } from "@evotrainer/core";
import { MIN_REVIEWED, readTruth, truthRows, truthTable } from "../../../core/src/__fixtures__/detector-truth.ts";
import { miniSweAgentRollout } from "./mini-swe-agent.ts";
import { sweAgentRollout } from "./swe-agent.ts";

const REAL = new URL("../../../../tests/fixtures/real/", import.meta.url);

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
    const truth = readTruth(new URL("swe-detector-truth.json", REAL));
    const rollouts = realSweRollouts();
    const compiled = compileHarness({ version: 1, detectors: [...SWE_DETECTORS], healthRules: [...DEFAULT_HEALTH_RULES] });
    if (!compiled.ok) throw new Error(JSON.stringify(compiled.rejections));
    const { labels, errors } = compiled.harness.label(rollouts, "swe");
    expect(errors).toEqual([]);
    const rows = truthRows(truth, SWE_DETECTORS, (label) => new Set(labels.filter((l) => l.label === label).map((l) => l.rolloutUid)));
    console.log(`swe detectors on ${rollouts.length} real trajectories (mini-swe-agent + SWE-agent):\n${truthTable(rows, truth)}`);
    for (const r of rows) {
      expect.soft(r.reviewedFlagged, `${r.label}: flagged rollouts reviewed`).toBeGreaterThanOrEqual(Math.min(MIN_REVIEWED, r.flagged));
      expect.soft(r.reviewedUnflagged, `${r.label}: unflagged rollouts reviewed`).toBeGreaterThanOrEqual(Math.min(MIN_REVIEWED, rollouts.length - r.flagged));
      expect.soft(r.precision, `${r.label} precision; disagreements:\n${r.disagreements.join("\n")}`).toBeGreaterThanOrEqual(r.target);
      expect.soft(r.reviewedFlagged, `${r.label} flags vs truth`).toBeLessThanOrEqual(Math.max(1, 1.5 * r.positives));
    }
  });
});
