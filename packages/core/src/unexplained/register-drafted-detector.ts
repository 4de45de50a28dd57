import { detectorSchema, type DetectorDefinition } from "../harness/detector.ts";
import type { Harness } from "../harness/harness.ts";
import { nextHarnessVersion } from "../harness-evolution/register-detectors.ts";
import type { DetectorBacktest } from "./backtest-detector.ts";

/** Why a version holding a drafted detector was registered: the cluster it came from and its backtest. */
export interface DraftRegistration {
  fromVersion: number;
  toVersion: number;
  detectorId: string;
  label: string;
  clusterKey: string;
  backtest: DetectorBacktest;
}

export type DraftRegisterResult = { ok: true; harness: Harness; registration: DraftRegistration } | { ok: false; message: string };

/**
 * The harness's next version with one drafted detector added, through the same version step as
 * harness evolution (nextHarnessVersion). The draft never carries a validity role, whatever it says:
 * a label voids successes only once people have decided it may, after reviews. A draft whose own
 * cases fail, or whose label or id the harness already has, is refused.
 */
export function registerDraftedDetector(harness: Harness, draft: DetectorDefinition, clusterKey: string, backtest: DetectorBacktest): DraftRegisterResult {
  const parsed = detectorSchema.safeParse({ ...draft, validity: false });
  if (!parsed.success) return { ok: false, message: `the detector is not valid: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}` };
  const detector = parsed.data;
  if (harness.detectors.some((d) => d.id === detector.id)) return { ok: false, message: `the harness already has a detector ${detector.id}; name the draft differently` };
  if (harness.detectors.some((d) => d.label === detector.label && d.domains.some((x) => detector.domains.includes(x)))) {
    return { ok: false, message: `the harness already has a label ${detector.label} for this domain; name the draft differently` };
  }
  if (backtest.caseFailures.length > 0) return { ok: false, message: `the detector fails its own cases: ${backtest.caseFailures.map((c) => c.caseName).join(", ")}` };
  const next = nextHarnessVersion(harness, [...harness.detectors, detector], harness.healthRules);
  if (!next.ok) return next;
  return { ok: true, harness: next.harness, registration: { fromVersion: harness.version, toVersion: next.harness.version, detectorId: detector.id, label: detector.label, clusterKey, backtest } };
}
