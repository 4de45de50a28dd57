import { FINAL_TRAIN_STEPS } from "@evotrainer/core";
import { registerDetectors, retroValidate, runConfigOf, type BranchRollouts, type ConfirmedLabel, type Detector } from "@evotrainer/core";
import { json, loadLastTrainSteps, recordEvent, registerHarnessVersion } from "@evotrainer/db";
import type { LoopDeps } from "./deps.ts";

/**
 * Detectors the LLM asked for get what step 2 gives any candidate: a replay over the run's settled
 * branches, and registration as a new harness version only if they separate rejected from promoted
 * branches (or agree with labels people confirmed). A label the harness already reads for the
 * domain is not replaced. The replay is recorded either way, as an `llm_detectors` event.
 */
export async function registerLlmDetectors(
  deps: Pick<LoopDeps, "db" | "harnesses">,
  input: { runId: string; round: number; detectors: readonly Detector[] },
): Promise<void> {
  const { db } = deps;
  const run = await db.run.findUniqueOrThrow({ where: { id: input.runId } });
  const config = runConfigOf(run);
  const { harness } = await deps.harnesses.get(run.harnessVersionId!);
  const known = new Set(harness.definition.detectors.filter((d) => d.domains.includes(config.domain)).map((d) => d.label));
  const fresh = input.detectors.filter((d) => !known.has(d.label));

  const settled = await db.branch.findMany({ where: { runId: run.id, kind: "candidate", status: { in: ["promoted", "rejected", "vetoed"] } }, select: { id: true, status: true } });
  const branches: BranchRollouts[] = [];
  for (const b of settled) {
    const { rollouts } = await loadLastTrainSteps(db, b.id, FINAL_TRAIN_STEPS);
    branches.push({ branchId: b.id, outcome: b.status === "promoted" ? "promoted" : "rejected", rollouts });
  }
  const reviewed = await db.rolloutLabel.findMany({ where: { rollout: { runId: run.id }, review: { not: null } }, include: { rollout: { select: { uid: true } } } });
  const confirmed: ConfirmedLabel[] = reviewed.map((l) => ({ rolloutUid: l.rollout.uid, label: l.label, present: l.review === "confirmed" }));
  const validations = fresh.map((d) => retroValidate(d, branches, confirmed, { domain: config.domain, successThreshold: config.gate.successThreshold }));
  const registered = registerDetectors(harness.definition, validations);

  await db.$transaction(async (tx) => {
    await recordEvent(tx, {
      runId: run.id,
      branchId: null,
      type: "llm_detectors",
      actor: "system",
      payload: json({
        round: input.round,
        alreadyRead: input.detectors.filter((d) => known.has(d.label)).map((d) => d.label),
        candidates: validations.map((v) => ({ detector: v.detectorId, accepted: v.accepted, reasons: v.reasons })),
      }),
    });
    if (!registered.ok) return;
    const id = await registerHarnessVersion(tx, {
      runId: run.id,
      parentId: run.harnessVersionId,
      version: registered.registration.toVersion,
      domain: config.domain,
      definition: registered.harness,
      evidence: json({ proposedBy: "llm", added: registered.registration.added }),
    });
    await tx.run.update({ where: { id: run.id }, data: { harnessVersionId: id } });
    await recordEvent(tx, {
      runId: run.id,
      type: "harness_version",
      actor: "llm",
      payload: json({ version: registered.registration.toVersion, added: registered.registration.added.map((a) => ({ detector: a.detectorId, label: a.label, reasons: a.reasons })) }),
    });
  });
}
