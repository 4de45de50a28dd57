import { describe, expect, it } from "vitest";
import type { Rollout } from "@evotrainer/contract";
import { MIN_REVIEWED, readTruth, truthRows, truthTable } from "./__fixtures__/detector-truth.ts";
import { loadGsm8k, loadLiveCodeBench, REAL_DIR } from "./__fixtures__/real-data.ts";
import { CODE_DETECTORS, MATH_DETECTORS } from "./catalog/index.ts";
import { compileHarness } from "./harness/harness.ts";
import type { DetectorDefinition } from "./harness/detector.ts";

function check(domain: "math" | "code", catalog: readonly DetectorDefinition[], rollouts: Rollout[], file: string) {
  const truth = readTruth(new URL(`file://${REAL_DIR}/${file}`));
  const compiled = compileHarness({ version: 1, detectors: [...catalog], healthRules: [] });
  if (!compiled.ok) throw new Error(JSON.stringify(compiled.rejections));
  const { labels, errors } = compiled.harness.label(rollouts, domain);
  expect(errors).toEqual([]);
  const uids = new Set(rollouts.map((r) => r.uid));
  for (const byUid of Object.values(truth.labels)) expect(Object.keys(byUid).filter((uid) => !uids.has(uid))).toEqual([]);
  const rows = truthRows(truth, catalog, (label) => new Set(labels.filter((l) => l.label === label).map((l) => l.rolloutUid)));
  console.log(`${domain} detectors on ${rollouts.length} real rollouts (${truth.source}):\n${truthTable(rows, truth)}`);
  for (const r of rows) {
    expect.soft(r.reviewedFlagged, `${r.label}: flagged rollouts reviewed`).toBeGreaterThanOrEqual(Math.min(MIN_REVIEWED, r.flagged));
    expect.soft(r.reviewedUnflagged, `${r.label}: unflagged rollouts reviewed`).toBeGreaterThanOrEqual(MIN_REVIEWED);
    expect.soft(r.precision, `${r.label} precision; disagreements:\n${r.disagreements.join("\n")}`).toBeGreaterThanOrEqual(r.target);
    expect.soft(r.reviewedFlagged, `${r.label} flags vs truth`).toBeLessThanOrEqual(Math.max(1, 1.5 * r.positives));
  }
  return rows;
}

describe("math and code detectors against hand-checked labels of real model output", () => {
  it("math on GSM8K solutions reaches the precision targets", () => {
    const rows = check("math", MATH_DETECTORS, loadGsm8k().map((r) => r.rollout), "math-detector-truth.json");
    // Recall is reported, not required, except where the data can show it: a loop or a wrong answer missed.
    expect(rows.find((r) => r.label === "wrong_answer")!.recall).toBe(1);
    expect(rows.find((r) => r.label === "repetition_loop")!.recall).toBeGreaterThanOrEqual(0.9);
  });

  it("code on LiveCodeBench outputs reaches the precision targets", () => {
    const rows = check("code", CODE_DETECTORS, loadLiveCodeBench().map((r) => r.rollout), "code-detector-truth.json");
    for (const label of ["timeout", "runtime_error", "compile_error"]) expect(rows.find((r) => r.label === label)!.recall).toBe(1);
  });
});
