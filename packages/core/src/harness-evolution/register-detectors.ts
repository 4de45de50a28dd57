import { compileHarness, type Harness } from "../harness/harness.ts";
import type { HealthRule } from "../harness/health-rule.ts";
import type { RetroEvidence, RetroValidation } from "./retro-validate.ts";

export interface RegisteredDetector {
  detectorId: string;
  label: string;
  /** The WARN rule over the new label's rate, when the replay gave a threshold to put it at. */
  healthRuleId?: string;
  reasons: string[];
  evidence: RetroEvidence;
}

/** What a new harness version was registered on: every added detector with the replay behind it. */
export interface HarnessRegistration {
  fromVersion: number;
  toVersion: number;
  added: RegisteredDetector[];
}

export type RegisterResult =
  | { ok: true; harness: Harness; registration: HarnessRegistration }
  | { ok: false; message: string };

/**
 * The next harness version with every accepted candidate added. A candidate that separated branches
 * also brings a WARN health rule on its label's rate, halfway between the promoted and rejected
 * means, so the new metric shows up in reports. The version is registered whole or not at all.
 */
export function registerDetectors(harness: Harness, validations: readonly RetroValidation[]): RegisterResult {
  const accepted = validations.filter((v) => v.accepted && v.detector && v.evidence);
  if (accepted.length === 0) return { ok: false, message: "no candidate was accepted; the harness stays at its version" };

  const detectors = [...harness.detectors];
  const healthRules = [...harness.healthRules];
  const added: RegisteredDetector[] = [];
  for (const v of accepted) {
    const detector = v.detector!;
    const evidence = v.evidence!;
    detectors.push(detector);
    let healthRuleId: string | undefined;
    const sep = evidence.separation;
    if (sep && sep.difference > 0) {
      const rule: HealthRule = {
        id: `label-${detector.label.replaceAll("_", "-")}-warn`,
        version: 1,
        level: "WARN",
        layer: "behaviour",
        description: `${detector.label} above the rate that separated rejected from promoted branches`,
        when: `label_rate['${detector.label}'] > ${threshold((sep.promotedMean + sep.rejectedMean) / 2)}`,
      };
      if (!healthRules.some((h) => h.id === rule.id)) {
        healthRules.push(rule);
        healthRuleId = rule.id;
      }
    }
    added.push({ detectorId: detector.id, label: detector.label, ...(healthRuleId ? { healthRuleId } : {}), reasons: v.reasons, evidence });
  }

  const next = nextHarnessVersion(harness, detectors, healthRules);
  if (!next.ok) return next;
  return { ok: true, harness: next.harness, registration: { fromVersion: harness.version, toVersion: next.harness.version, added } };
}

/** The harness's next version with these detectors and health rules, if it compiles whole. */
export function nextHarnessVersion(harness: Harness, detectors: Harness["detectors"], healthRules: Harness["healthRules"]): { ok: true; harness: Harness } | { ok: false; message: string } {
  const compiled = compileHarness({ ...harness, version: harness.version + 1, detectors, healthRules });
  if (!compiled.ok) return { ok: false, message: compiled.rejections.map((r) => `${r.id}: ${r.message}`).join("; ") };
  return { ok: true, harness: compiled.harness.definition };
}

function threshold(x: number): string {
  const rounded = Math.round(x * 1e4) / 1e4;
  return Number.isInteger(rounded) ? rounded.toFixed(1) : String(rounded);
}
