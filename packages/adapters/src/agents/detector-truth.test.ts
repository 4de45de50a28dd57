import { readdirSync, readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { hasResult, type Rollout } from "@evotrainer/contract";
import { compileHarness, DEFAULT_HEALTH_RULES, SWE_DETECTORS } from "@evotrainer/core";
import { MIN_REVIEWED, outcomeRows, outcomeTable, readTruth, truthRows, truthTable, type TruthRow } from "../../../core/src/__fixtures__/detector-truth.ts";
import { miniSweAgentRollout } from "./mini-swe-agent.ts";
import { sweAgentRollout } from "./swe-agent.ts";

const REAL = new URL("../../../../tests/fixtures/real/", import.meta.url);
const REAL_OOS = new URL("../../../../tests/fixtures/real-oos/", import.meta.url);

function miniSweAgentFile(url: URL): Rollout[] {
  const lines = gunzipSync(readFileSync(url)).toString("utf8").trim().split("\n");
  return lines.map((line, i) => miniSweAgentRollout(JSON.parse(line), { where: `line ${i + 1}` }));
}

/** The in-sample SWE trajectories as the importers read them, uid = instance id (mini-swe-agent) or swe-agent/<file>. */
function realSweRollouts(): Rollout[] {
  const rollouts = miniSweAgentFile(new URL("mini-swe-agent-gemini-3-pro-dev150.jsonl.gz", REAL));
  for (const file of readdirSync(new URL("swe-agent/", REAL)).sort()) {
    const json: unknown = JSON.parse(readFileSync(new URL(`swe-agent/${file}`, REAL), "utf8"));
    rollouts.push({ ...sweAgentRollout(json, { where: file, instanceId: file.replace(/\.traj$/, "") }), uid: `swe-agent/${file}` });
  }
  return rollouts;
}

/** Labels the rollouts with the swe catalog and measures it against the truth file, and by outcome. */
function measure(rollouts: Rollout[], truthUrl: URL, title: string) {
  const truth = readTruth(truthUrl);
  const compiled = compileHarness({ version: 1, detectors: [...SWE_DETECTORS], healthRules: [...DEFAULT_HEALTH_RULES] });
  if (!compiled.ok) throw new Error(JSON.stringify(compiled.rejections));
  const { labels, errors } = compiled.harness.label(rollouts, "swe");
  expect(errors).toEqual([]);
  const flaggedBy = (label: string) => new Set(labels.filter((l) => l.label === label).map((l) => l.rolloutUid));
  const rows = truthRows(truth, SWE_DETECTORS, flaggedBy);
  // A rollout succeeds when SWE-bench resolved it (the importers' reward).
  const scored = rollouts.filter(hasResult);
  const resolved = new Set(scored.filter((r) => r.reward >= 0.5).map((r) => r.uid));
  const outcomes = outcomeRows(SWE_DETECTORS.map((d) => d.label), resolved, scored.map((r) => r.uid), flaggedBy);
  console.log(`${title}:\n${truthTable(rows, truth)}\n\nflag rates by outcome:\n${outcomeTable(outcomes)}`);
  for (const r of outcomes) {
    expect(r.flaggedSucceeded, `${r.label} fires on more than half of the successful rollouts`).toBeLessThanOrEqual(r.succeeded / 2);
  }
  return { rows, row: (label: string) => rows.find((r) => r.label === label) as TruthRow };
}

describe("swe detectors against hand-checked labels of real trajectories", () => {
  it("in sample: reach the precision targets (validity ≥ 0.9, others ≥ 0.8) and never flag 1.5× what the truth holds", () => {
    const rollouts = realSweRollouts();
    const { rows } = measure(rollouts, new URL("swe-detector-truth.json", REAL), `swe detectors on ${rollouts.length} in-sample trajectories (mini-swe-agent + SWE-agent)`);
    for (const r of rows) {
      expect.soft(r.reviewedFlagged, `${r.label}: flagged rollouts reviewed`).toBeGreaterThanOrEqual(Math.min(MIN_REVIEWED, r.flagged));
      expect.soft(r.reviewedUnflagged, `${r.label}: unflagged rollouts reviewed`).toBeGreaterThanOrEqual(Math.min(MIN_REVIEWED, rollouts.length - r.flagged));
      expect.soft(r.precision, `${r.label} precision; disagreements:\n${r.disagreements.join("\n")}`).toBeGreaterThanOrEqual(r.target);
      expect.soft(r.reviewedFlagged, `${r.label} flags vs truth`).toBeLessThanOrEqual(Math.max(1, 1.5 * r.positives));
    }
  });

  it("out of sample: trajectories read only after the rules were frozen reach the precision targets; recall holds at what was measured", () => {
    const rollouts = miniSweAgentFile(new URL("mini-swe-agent-gemini-3-pro-oos.jsonl.gz", REAL_OOS));
    expect(rollouts.length).toBeGreaterThanOrEqual(100);
    const { rows, row } = measure(rollouts, new URL("swe-detector-truth-oos.json", REAL_OOS), `swe detectors on ${rollouts.length} out-of-sample mini-swe-agent trajectories`);
    // Every trajectory is read for every detector.
    for (const r of rows) expect(r.reviewedFlagged + r.reviewedUnflagged, r.label).toBe(rollouts.length);
    expect(rows.map((r) => r.label).sort()).toEqual(SWE_DETECTORS.map((d) => d.label).sort());
    for (const r of rows) expect.soft(r.precision, `${r.label} precision; disagreements:\n${r.disagreements.join("\n")}`).toBeGreaterThanOrEqual(r.target);
    // The recall measured when the set was first read (docs/label-accuracy.md lists the misses): a floor.
    expect(row("test_tampering").recall).toBe(1);
    expect(row("tool_error").recall).toBeGreaterThanOrEqual(41 / 45);
    expect(row("env_error").recall).toBeGreaterThanOrEqual(17 / 18);
    expect(row("no_test_after_edit").recall).toBe(1);
  });
});
