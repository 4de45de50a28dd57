import { describe, expect, it } from "vitest";
import { rollout } from "../__fixtures__/branch-fixtures.ts";
import type { Finding } from "../harness/health-report.ts";
import type { Label } from "../harness/detector.ts";
import { diagnosticGap } from "./gap-check.ts";

const layers = (crit: string[] = []) => ({
  score: [] as Finding[],
  signal: crit.map((c): Finding => ({ layer: "signal", level: "CRIT", source: c, title: c, evidence: { metrics: {}, counts: {}, exampleUids: [] } })),
  behaviour: [] as Finding[],
});
const label = (uid: string, name: string): Label => ({ rolloutUid: uid, label: name, detectorId: `math.${name}`, detectorVersion: 1, validity: false, evidence: null });

// r1 succeeds; r2..r5 fail: r2 truncated (explained), r3 only wrong (the failure itself), r4 and r5 unlabelled.
const rollouts = [rollout("r1", "g", 1), rollout("r2", "g", 0), rollout("r3", "g", 0), rollout("r4", "g", 0), rollout("r5", "g", 0)];
const labels = [label("r2", "truncated"), label("r2", "wrong_answer"), label("r3", "wrong_answer")];

describe("diagnosticGap", () => {
  it("finds a gap when the score stalls and no CRIT finding names a cause", () => {
    const g = diagnosticGap({ report: { layers: layers() }, scoreHistory: [0.3, 0.41, 0.415, 0.412], rollouts, labels }, { maxUnexplainedShare: 0.9 });
    expect(g.gap).toBe(true);
    expect(g.scoreFlat).toBe(true);
    expect(g.reasons).toHaveLength(1);
  });

  it("finds none while the score improves, or while a CRIT finding explains the stall", () => {
    const opts = { maxUnexplainedShare: 0.9 };
    expect(diagnosticGap({ report: { layers: layers() }, scoreHistory: [0.3, 0.35, 0.42], rollouts, labels }, opts).gap).toBe(false);
    const crit = diagnosticGap({ report: { layers: layers(["dead-groups-crit"]) }, scoreHistory: [0.4, 0.4, 0.4], rollouts, labels }, opts);
    expect(crit).toMatchObject({ gap: false, scoreFlat: true, critFindings: ["dead-groups-crit"] });
    // Too few rounds to call the score flat.
    expect(diagnosticGap({ report: { layers: layers() }, scoreHistory: [0.4, 0.4], rollouts, labels }, opts).gap).toBe(false);
  });

  it("finds a gap when most failures carry no label but the failure itself", () => {
    const g = diagnosticGap({ report: { layers: layers(["dead-groups-crit"]) }, scoreHistory: [], rollouts, labels });
    expect(g).toMatchObject({ gap: true, scoreFlat: false, failures: 4, unexplained: 3, unexplainedShare: 0.75, exampleUids: ["r3", "r4", "r5"] });
    const explained = [...labels, label("r3", "format_error"), label("r4", "repetition_loop")];
    expect(diagnosticGap({ report: { layers: layers(["dead-groups-crit"]) }, scoreHistory: [], rollouts, labels: explained })).toMatchObject({ gap: false, unexplained: 1 });
  });
});
