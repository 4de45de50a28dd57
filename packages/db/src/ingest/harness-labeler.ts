import type { CompiledHarness, Domain } from "@evotrainer/core";
import type { Rollout } from "@evotrainer/contract";
import type { BatchLabeler } from "./batch-labels.ts";
import type { LabelerPool } from "./labeler-pool.ts";

/**
 * A compiled harness version as ingest runs it: the domain's detectors, with their database ids.
 * With a pool (and a key naming the version), detectors run in its worker threads when one is free,
 * and on the calling thread otherwise: a pool still starting or busy never holds ingest back, and
 * the calling thread labels alongside the threads when they cannot keep up.
 */
export function harnessLabeler(
  harness: CompiledHarness,
  detectorRowIds: ReadonlyMap<string, string>,
  domain: Domain,
  maxResponseTokens: number,
  threads?: { pool: LabelerPool; harnessKey: string },
): BatchLabeler {
  const active = harness.detectors.filter((d) => d.definition.domains.includes(domain));
  return {
    label: (rollouts: readonly Rollout[]) =>
      threads?.pool.idle
        ? threads.pool.label(threads.harnessKey, harness.definition, domain, maxResponseTokens, rollouts)
        : harness.label(rollouts, domain, { maxResponseTokens }).labels,
    detectors: new Map(active.map((d) => [d.definition.id, { rowId: detectorRowIds.get(d.definition.id)!, label: d.definition.label }])),
  };
}
