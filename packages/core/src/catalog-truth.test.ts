import { describe, expect, it } from "vitest";
import type { Rollout } from "@evotrainer/contract";
import { MIN_REVIEWED, readTruth, truthRows, truthTable, type TruthRow } from "./__fixtures__/detector-truth.ts";
import { loadGsm8k, loadLiveCodeBench, REAL_DIR } from "./__fixtures__/real-data.ts";
import { CODE_DETECTORS, MATH_DETECTORS } from "./catalog/index.ts";
import { compileHarness } from "./harness/harness.ts";
import type { DetectorDefinition } from "./harness/detector.ts";

/** Labels the rollouts with the catalog and checks it against the hand-read truth file, as the swe test does. */
function check(domain: "math" | "code", catalog: readonly DetectorDefinition[], rollouts: Rollout[], file: string) {
  const truth = readTruth(new URL(`file://${REAL_DIR}/${file}`));
  const compiled = compileHarness({ version: 1, detectors: [...catalog], healthRules: [] });
  if (!compiled.ok) throw new Error(JSON.stringify(compiled.rejections));
  const { labels, errors } = compiled.harness.label(rollouts, domain);
  expect(errors).toEqual([]);
  const uids = new Set(rollouts.map((r) => r.uid));
  for (const byUid of Object.values(truth.labels)) expect(Object.keys(byUid).filter((uid) => !uids.has(uid))).toEqual([]);
  // Every detector of the catalog is reviewed, not only the ones that fire on this data.
  expect(Object.keys(truth.labels).sort()).toEqual(catalog.filter((d) => d.domains.includes(domain)).map((d) => d.label).sort());
  const flaggedBy = (label: string) => new Set(labels.filter((l) => l.label === label).map((l) => l.rolloutUid));
  const rows = truthRows(truth, catalog, flaggedBy);
  console.log(`${domain} detectors on ${rollouts.length} real rollouts (${truth.source}):\n${truthTable(rows, truth)}`);
  for (const r of rows) {
    expect.soft(r.reviewedFlagged, `${r.label}: flagged rollouts reviewed`).toBeGreaterThanOrEqual(Math.min(MIN_REVIEWED, r.flagged));
    expect.soft(r.reviewedUnflagged, `${r.label}: unflagged rollouts reviewed`).toBeGreaterThanOrEqual(MIN_REVIEWED);
    expect.soft(r.precision, `${r.label} precision; disagreements:\n${r.disagreements.join("\n")}`).toBeGreaterThanOrEqual(r.target);
    expect.soft(r.reviewedFlagged, `${r.label} flags vs truth`).toBeLessThanOrEqual(Math.max(1, 1.5 * r.positives));
  }
  const row = (label: string) => rows.find((r) => r.label === label) as TruthRow;
  return { truth, row, flaggedBy };
}

describe("math and code detectors against hand-checked labels of real model output", () => {
  it("math on GSM8K solutions reaches the precision targets", () => {
    const { truth, row, flaggedBy } = check("math", MATH_DETECTORS, loadGsm8k().map((r) => r.rollout), "math-detector-truth.json");
    // Recall is asserted where the reviewed set can show a miss: wrong answers, missing answers, and the
    // near-miss loops sampled for that purpose.
    expect(row("wrong_answer").recall).toBe(1);
    expect(row("format_error").recall).toBe(1);
    expect(row("repetition_loop").recall).toBeGreaterThanOrEqual(0.9);
    // GSM8K records no finish reason or token limit, so truncated cannot fire here (its recall is 0 and is
    // reported, not hidden); what keeps a cut-off solution from passing silently is format_error.
    const cut = Object.entries(truth.labels.truncated!).filter(([, t]) => t.truth).map(([uid]) => uid);
    expect(cut.length).toBeGreaterThan(0);
    const formatErrors = flaggedBy("format_error");
    expect(cut.filter((uid) => !formatErrors.has(uid))).toEqual([]);
  });

  it("code on LiveCodeBench outputs reaches the precision targets", () => {
    const { row } = check("code", CODE_DETECTORS, loadLiveCodeBench().map((r) => r.rollout), "code-detector-truth.json");
    for (const label of ["wrong_answer", "timeout", "runtime_error", "hardcoded_output"]) expect(row(label).recall, label).toBe(1);
  });
});
