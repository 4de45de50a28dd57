import type { CompiledHarness, Domain } from "@evotrainer/core";
import type { Rollout } from "@evotrainer/contract";
import type { BatchLabeler } from "./batch-labels.ts";

/** A compiled harness version as ingest runs it: the domain's detectors, with their database ids. */
export function harnessLabeler(
  harness: CompiledHarness,
  detectorRowIds: ReadonlyMap<string, string>,
  domain: Domain,
  maxResponseTokens: number,
): BatchLabeler {
  const active = harness.detectors.filter((d) => d.definition.domains.includes(domain));
  return {
    label: (rollouts: readonly Rollout[]) => harness.label(rollouts, domain, { maxResponseTokens }).labels,
    detectors: new Map(active.map((d) => [d.definition.id, { rowId: detectorRowIds.get(d.definition.id)!, label: d.definition.label }])),
  };
}
