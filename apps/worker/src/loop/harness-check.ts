import { FINAL_TRAIN_STEPS } from "@evotrainer/core";
import { diagnosticGap, evolveHarness, type BranchRollouts, type ConfirmedLabel, type HealthReport, type Label } from "@evotrainer/core";
import type { Rollout } from "@evotrainer/contract";
import { json, loadLastTrainSteps, recordEvent, registerHarnessVersion, type Tx } from "@evotrainer/db";
import type { LoopDeps } from "./deps.ts";
import { runConfigOf } from "@evotrainer/core";

/**
 * Step 2 of the loop: when the report cannot explain what goes wrong (the score stalled without a
 * CRIT finding, or most failures carry no explaining label), candidate detectors are replayed over
 * the run's settled branches and the ones that separate promoted from rejected branches (or agree
 * with labels people confirmed) become a new harness version, with the evidence recorded.
 * Returns the harness version id to diagnose with from now on.
 */
export async function harnessCheck(
  deps: LoopDeps,
  input: { runId: string; round: number; report: HealthReport; rollouts: readonly Rollout[]; labels: readonly Label[] },
): Promise<string> {
  const { db } = deps;
  const run = await db.run.findUniqueOrThrow({ where: { id: input.runId } });
  // A step retried after a crash (or run twice) finds this round's check done: its outcome, a new
  // harness version or none, is already the run's.
  if (await checkedThisRound(db, run.id, input.round)) return run.harnessVersionId!;
  const config = runConfigOf(run);
  const frontierScores = await db.branch.findMany({
    where: { runId: run.id, status: "promoted", promotionScore: { not: null } },
    orderBy: { round: "asc" },
    select: { promotionScore: true },
  });
  const gap = diagnosticGap(
    { report: input.report, scoreHistory: frontierScores.map((b) => b.promotionScore!), rollouts: input.rollouts, labels: input.labels },
    { successThreshold: config.gate.successThreshold },
  );
  if (!gap.gap) return run.harnessVersionId!;

  // The base branch was never judged against anything: it is no evidence either way.
  const settled = await db.branch.findMany({
    where: { runId: run.id, kind: "candidate", parentId: { not: null }, status: { in: ["promoted", "rejected", "vetoed"] } },
    select: { id: true, status: true },
  });
  const branches: BranchRollouts[] = [];
  for (const b of settled) {
    const { rollouts } = await loadLastTrainSteps(deps.db, b.id, FINAL_TRAIN_STEPS);
    branches.push({ branchId: b.id, outcome: b.status === "promoted" ? "promoted" : "rejected", rollouts });
  }
  const reviewed = await db.rolloutLabel.findMany({ where: { rollout: { runId: run.id }, review: { not: null } }, include: { rollout: { select: { uid: true } } } });
  const confirmed: ConfirmedLabel[] = reviewed.map((l) => ({ rolloutUid: l.rollout.uid, label: l.label, present: l.review === "confirmed" }));
  const { harness } = await deps.harnesses.get(run.harnessVersionId!);
  const evolution = evolveHarness({ harness: harness.definition, domain: config.domain, gap, branches, confirmed, options: { successThreshold: config.gate.successThreshold }, rounds: config.budget.rounds });
  const summary = evolution.validations.map((v) => ({ detector: v.detectorId, accepted: v.accepted, refusedBy: v.refusedBy, reasons: v.reasons }));

  return db.$transaction(async (tx) => {
    const [locked] = await tx.$queryRaw<{ harnessVersionId: string }[]>`SELECT "harnessVersionId" FROM "Run" WHERE id = ${run.id} FOR UPDATE`;
    if (await checkedThisRound(tx, run.id, input.round)) return locked!.harnessVersionId;
    await recordEvent(tx, { runId: run.id, type: "harness_check", actor: "system", payload: json({ round: input.round, gap: gap.reasons, unexplainedShare: gap.unexplainedShare, candidates: summary }) });
    if (!evolution.registration) return run.harnessVersionId!;
    const id = await registerHarnessVersion(tx, {
      runId: run.id,
      parentId: run.harnessVersionId,
      version: evolution.registration.toVersion,
      domain: config.domain,
      definition: evolution.harness,
      evidence: json({ gap: gap.reasons, added: evolution.registration.added }),
    });
    await tx.run.update({ where: { id: run.id }, data: { harnessVersionId: id } });
    await recordEvent(tx, {
      runId: run.id,
      type: "harness_version",
      actor: "system",
      payload: json({ version: evolution.registration.toVersion, added: evolution.registration.added.map((a) => ({ detector: a.detectorId, label: a.label, reasons: a.reasons })) }),
    });
    return id;
  });
}

async function checkedThisRound(db: Pick<LoopDeps["db"], "event"> | Tx, runId: string, round: number): Promise<boolean> {
  return (await db.event.count({ where: { runId, type: "harness_check", payload: { path: ["round"], equals: round } } })) > 0;
}
