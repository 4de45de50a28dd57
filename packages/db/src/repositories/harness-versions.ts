import type { DetectorDefinition, HarnessDefinition, HealthRule } from "@evotrainer/core";
import { detectorSchema, healthRuleSchema } from "@evotrainer/core";
import type { Domain, Prisma } from "../generated/prisma/client.ts";
import type { Tx } from "./events.ts";
import { json } from "./json.ts";

/**
 * Stores a harness version: its detectors (each row one versioned rule, shared by every harness
 * version that uses it), health rules and gate policy.
 */
export async function registerHarnessVersion(
  tx: Tx,
  input: { runId: string; parentId: string | null; version: number; domain: Domain; definition: HarnessDefinition; evidence?: Prisma.InputJsonValue },
): Promise<string> {
  const detectorIds: string[] = [];
  for (const raw of input.definition.detectors) {
    const d = detectorSchema.parse(raw);
    const row = await tx.detector.upsert({
      where: { key_version: { key: d.id, version: d.version } },
      update: {},
      create: {
        key: d.id,
        label: d.label,
        version: d.version,
        domains: d.domains,
        cel: d.when,
        evidenceCel: d.evidence ?? null,
        description: d.description,
        validity: d.validity,
        testCases: json(d.cases),
      },
    });
    // A detector version is immutable: labels name it, so the same key and version must mean the same rule.
    if (row.cel !== d.when || row.evidenceCel !== (d.evidence ?? null) || row.validity !== d.validity || row.label !== d.label) {
      throw new Error(`detector ${d.id} v${d.version} is already registered with a different rule; give the changed detector a new version`);
    }
    detectorIds.push(row.id);
  }
  const harness = await tx.harnessVersion.create({
    data: {
      runId: input.runId,
      parentId: input.parentId,
      version: input.version,
      domain: input.domain,
      metrics: [],
      healthRules: json(input.definition.healthRules),
      gatePolicy: json(input.definition.gate ?? {}),
      evidence: input.evidence,
      detectors: { create: detectorIds.map((detectorId) => ({ detectorId })) },
    },
  });
  return harness.id;
}

/** A stored harness version back in core's shape, plus the database id of each detector key. */
export async function loadHarnessVersion(
  db: Tx,
  harnessVersionId: string,
): Promise<{ definition: HarnessDefinition; detectorRowIds: Map<string, string>; version: number }> {
  const row = await db.harnessVersion.findUniqueOrThrow({
    where: { id: harnessVersionId },
    include: { detectors: { include: { detector: true } } },
  });
  const detectors: DetectorDefinition[] = row.detectors.map(({ detector: d }) => ({
    id: d.key,
    label: d.label,
    version: d.version,
    domains: d.domains,
    description: d.description,
    when: d.cel,
    ...(d.evidenceCel ? { evidence: d.evidenceCel } : {}),
    validity: d.validity,
    cases: d.testCases as DetectorDefinition["cases"],
  }));
  return {
    version: row.version,
    definition: {
      version: row.version,
      detectors,
      healthRules: (row.healthRules as unknown[]).map((r) => healthRuleSchema.parse(r) as HealthRule),
      gate: row.gatePolicy as HarnessDefinition["gate"],
    },
    detectorRowIds: new Map(row.detectors.map(({ detector: d }) => [d.key, d.id])),
  };
}
