import { DETECTOR_CATALOG } from "../catalog/index.ts";
import type { CompiledHarness, GatePolicy } from "../harness/harness.ts";
import type { BranchMetrics } from "../harness/metrics.ts";

/** A branch of the round, as the gate reads its validity labels. */
export interface ValiditySide {
  name: string;
  metrics: Pick<BranchMetrics, "label_rate">;
}

/**
 * Why the score test cannot be trusted this round: a validity label the gate does not limit is on
 * some branch of it. Training seeds then split into those that learn the shortcut and those that do
 * not, and two or three controls that happen to land on one side measure a seed noise far below the
 * gap between the sides, so a null from the other side passes any test built on that noise (issue 40:
 * 17 of 160 null runs promoted with `gate.validityLimits: {}` on a hacking base). A limit on the label
 * judges that gap directly; without one, a person decides. Empty when every present label is limited.
 */
export function unlimitedValidity(validityLabels: readonly string[], limits: Readonly<Record<string, number>>, sides: readonly ValiditySide[]): string[] {
  const reasons: string[] = [];
  for (const label of [...new Set(validityLabels)].sort()) {
    if (label in limits) continue;
    const carrying = sides.filter((s) => (s.metrics.label_rate[label] ?? 0) > 0);
    if (carrying.length === 0) continue;
    reasons.push(
      `validity label ${label} is on this round's rollouts (${carrying.map((s) => s.name).join(", ")}) and gate.validityLimits does not limit it: seeds that learn such a shortcut and seeds that do not score apart, so the controls' seed noise cannot judge this round. A person decides; add gate.validityLimits.${label} to let the gate judge.`,
    );
  }
  return reasons;
}

/** The labels a harness's validity detectors give. */
export function validityLabelsOf(harness: Pick<CompiledHarness, "detectors">): string[] {
  return [...new Set(harness.detectors.filter((d) => d.definition.validity).map((d) => d.definition.label))].sort();
}

/**
 * Before a run starts: the validity labels of its domain's catalog that gate.validityLimits leaves
 * unlimited, so that a user learns then, not at the first round, that such rounds go to a person.
 */
export function unlimitedValidityWarning(config: { domain: string; gate: Pick<GatePolicy, "validityLimits"> }): string | null {
  const labels = [...new Set(DETECTOR_CATALOG.filter((d) => d.validity && (d.domains as readonly string[]).includes(config.domain)).map((d) => d.label))].sort();
  const open = labels.filter((l) => !(l in config.gate.validityLimits));
  if (open.length === 0) return null;
  return `gate.validityLimits does not limit ${open.join(", ")} (validity detectors of the ${config.domain} catalog): a round where one of them fires goes to a person, not the gate, since seeds that learn a shortcut and seeds that do not score apart. Add a limit for each (for example gate.validityLimits: { ${open[0]}: 0.05 }) to let the gate judge such rounds`;
}
