import { FINAL_TRAIN_STEPS } from "@evotrainer/core";
import { componentCandidates } from "@evotrainer/adapters";
import { designGateFor, healthReport, offeredFactors, lockedEvaluationOf, planRound, recipeSchema, type Label, type ProposerInput } from "@evotrainer/core";
import { json, loadLastTrainSteps, recordEvent, storeRecipe } from "@evotrainer/db";
import { QueueName } from "@evotrainer/queue";
import { budgetExhausted } from "./budget.ts";
import type { LoopDeps } from "./deps.ts";
import { budgetUsed, finishRun } from "./finish-run.ts";
import { harnessCheck } from "./harness-check.ts";
import { lastTrainerMetrics } from "./last-trainer-metrics.ts";
import { loadLineage } from "./lineage.ts";
import { registerLlmDetectors } from "./llm-detectors.ts";
import { renderCheck } from "./render-check.ts";
import { loadProposalHistory } from "./proposal-history.ts";
import { createControls } from "./round-controls.ts";
import { roundProposals } from "./round-proposals.ts";
import { loadSkills } from "./skills.ts";

/**
 * One round's design: diagnose the best-so-far branch, ask the proposer for K interventions, check
 * and backtest each on the parent's rollouts, and turn the best B into queued child branches.
 * Everything the round decided is written in one transaction, so a repeated step changes nothing.
 */
export async function propose(deps: LoopDeps, payload: { runId: string; round: number }): Promise<string> {
  const { db } = deps;
  const { run, config, used } = await budgetUsed(deps, payload.runId);
  if (run.status !== "running") return `run is ${run.status}`;
  if (run.round >= payload.round) {
    const queued = await db.branch.findMany({ where: { runId: run.id, round: payload.round, status: "queued" } });
    for (const b of queued) await deps.producer.enqueue(QueueName.Dispatch, { runId: run.id, branchId: b.id });
    return `round ${payload.round} was already proposed`;
  }
  const exhausted = budgetExhausted(config.budget, used);
  if (exhausted) return finishRun(deps, run.id, exhausted);

  // Nothing to build on when the base branch itself failed (a trainer that refuses the base recipe, say).
  if (!run.bestBranchId) return finishRun(deps, run.id, "no branch trained successfully");
  const parent = await db.branch.findUniqueOrThrow({ where: { id: run.bestBranchId }, include: { recipe: true, children: { include: { recipe: true } } } });
  const parentRecipe = recipeSchema.parse(JSON.parse(parent.recipe.canonical));
  const { rollouts, labels: storedLabels } = await loadLastTrainSteps(db, parent.id, FINAL_TRAIN_STEPS);
  const first = await deps.harnesses.get(run.harnessVersionId!);
  const trainer = await lastTrainerMetrics(db, parent.id);
  const firstReport = healthReport(first.harness, rollouts, storedLabels, trainer);
  const harnessVersionId = await harnessCheck(deps, { runId: run.id, round: payload.round, report: firstReport, rollouts, labels: storedLabels });
  const { harness } = await deps.harnesses.get(harnessVersionId);
  // A new harness version diagnoses the parent again, its new detectors run on the rollouts whose text was kept.
  const labels = harnessVersionId === run.harnessVersionId ? storedLabels : mergeLabels(storedLabels, harness.label(rollouts, config.domain).labels);
  const report = harnessVersionId === run.harnessVersionId ? firstReport : healthReport(harness, rollouts, labels, trainer);
  const lineage = await loadLineage(db, run.id);
  // A revise note is for the round after the branch it was given on, not for every later one.
  const revision = await db.decision.findFirst({ where: { branch: { runId: run.id, round: payload.round - 1 }, kind: "revise" }, orderBy: { createdAt: "desc" } });

  const slots = Math.min(config.search.keep, config.budget.branches - used.branches);
  const locked = lockedEvaluationOf(config);
  // Only what the run's trainer renders on this parent: a refused factor or value would fail at dispatch.
  const renders = renderCheck(deps.adapters[config.adapter], config, {
    runId: run.id,
    parentBranchId: parent.id,
    checkpoint: (parent.checkpoint as { path?: string } | null)?.path,
  });
  const input: ProposerInput = {
    domain: config.domain,
    report,
    recipe: parentRecipe,
    factors: offeredFactors(parentRecipe, renders, componentCandidates(config.trainer)),
    renders,
    lineage,
    skills: await loadSkills(db, run.organizationId),
    k: config.search.proposals,
    ...(revision ? { revision: revision.instructions ?? revision.reason } : {}),
  };
  const { interventions: proposals, detectors } = await roundProposals(deps, {
    runId: run.id,
    branchId: parent.id,
    round: payload.round,
    config,
    locked,
    input,
    context: async () => ({ rollouts, labels, ...(await loadProposalHistory(db, run.id)) }),
  });
  const planned = planRound({
    parentRecipe,
    locked,
    proposals,
    parentRollouts: rollouts,
    parentLabels: labels,
    triedRecipeHashes: new Set(parent.children.filter((c) => c.kind === "candidate").map((c) => c.recipe.hash)),
    keep: slots,
    successThreshold: config.gate.successThreshold,
    factors: input.factors,
    renders,
  });
  await deps.failpoint("propose:planned");

  // Under a design gate the round's branches wait, as proposed, for a person to approve a candidate.
  const design = designGateFor(config.autonomy);
  const created = await db.$transaction(async (tx) => {
    const fresh = await tx.run.updateMany({ where: { id: run.id, round: { lt: payload.round } }, data: { round: payload.round } });
    if (fresh.count === 0) return null;
    await recordEvent(tx, {
      runId: run.id,
      branchId: parent.id,
      type: "diagnosis",
      actor: "system",
      payload: json({ round: payload.round, harnessVersion: report.harnessVersion, worst: report.worst, metrics: report.metrics, layers: report.layers }),
    });
    let version = (await tx.branch.aggregate({ where: { runId: run.id }, _max: { version: true } }))._max.version ?? 0;
    const branches: string[] = [];
    for (const p of planned) {
      const intervention = await tx.intervention.create({
        data: {
          runId: run.id,
          parentBranchId: parent.id,
          round: payload.round,
          hypothesis: p.intervention.hypothesis,
          targetMetric: p.intervention.targetMetric,
          factor: p.intervention.factor,
          patch: json(p.intervention.patch),
          expectedEffect: json(p.intervention.expectedEffect),
          falsification: p.intervention.falsification,
          provenance: p.intervention.provenance.kind,
          skillId: p.intervention.provenance.kind === "skill" ? (p.intervention.provenance.ref ?? null) : null,
          status: p.status === "rejected" ? "rejected" : p.kept ? "selected" : "discarded",
          rejectionReason: p.status === "rejected" ? `${p.reason}: ${p.message}` : null,
        },
      });
      await recordEvent(tx, {
        runId: run.id,
        branchId: parent.id,
        type: p.status === "rejected" ? "proposal_rejected" : "proposal",
        actor: p.intervention.provenance.kind,
        payload: json({
          interventionId: intervention.id,
          factor: p.intervention.factor,
          hypothesis: p.intervention.hypothesis,
          ...(p.intervention.provenance.ref !== undefined ? { proposedBy: p.intervention.provenance.ref } : {}),
          ...(p.status === "rejected" ? { reason: p.reason, message: p.message } : {}),
        }),
      });
      if (p.status !== "backtested") continue;
      await tx.backtest.create({
        data: { interventionId: intervention.id, report: json(p.backtest), predictedEffect: p.backtest.predicted.size, rank: p.rank, kept: p.kept },
      });
      await recordEvent(tx, {
        runId: run.id,
        branchId: parent.id,
        type: "backtest",
        actor: "system",
        payload: json({ interventionId: intervention.id, rank: p.rank, kept: p.kept, predicted: p.backtest.predicted, deadGroups: p.backtest.deadGroups }),
      });
      if (!p.kept) continue;
      const recipeId = await storeRecipe(tx, p.recipe);
      const branch = await tx.branch.create({
        data: { runId: run.id, parentId: parent.id, version: ++version, round: payload.round, status: design.gated ? "proposed" : "queued", recipeId, interventionId: intervention.id },
      });
      await recordEvent(tx, { runId: run.id, branchId: branch.id, type: "branch_created", actor: "system", payload: { version, factor: p.intervention.factor, parent: parent.id } });
      if (design.gated) {
        await recordEvent(tx, { runId: run.id, branchId: branch.id, type: "awaiting_decision", actor: "system", payload: { stage: "design", reasons: design.reasons } });
      }
      branches.push(branch.id);
    }
    // Candidates are judged against what the parent becomes with the same extra training. Seed
    // noise is measured per parent: a parent no earlier round measured needs more replicates.
    const measuredParent = parent.children.some((c) => c.kind === "control" && c.promotionScore !== null);
    const replicates = measuredParent ? config.search.controlReplicates : config.search.newParentControlReplicates;
    const controls =
      branches.length > 0 && config.search.control === "sibling"
        ? await createControls(tx, { runId: run.id, parent, round: payload.round, version, replicates, status: design.gated ? "proposed" : "queued" })
        : [];
    return { branches, controls };
  });

  if (created === null) return `round ${payload.round} was proposed concurrently`;
  if (detectors.length > 0) await registerLlmDetectors(deps, { runId: run.id, round: payload.round, detectors });
  if (created.branches.length === 0) return finishRun(deps, run.id, "the proposer found no new intervention to try");
  if (design.gated) return `${created.branches.length} branch(es) waiting for a design decision`;
  for (const branchId of [...created.branches, ...created.controls]) await deps.producer.enqueue(QueueName.Dispatch, { runId: run.id, branchId });
  deps.log(`propose: run ${run.id} round ${payload.round}: ${planned.length} proposals, ${created.branches.length} branch(es), ${created.controls.length} control(s)`);
  return `${created.branches.length} branch(es) and ${created.controls.length} control(s) queued`;
}

function mergeLabels(stored: readonly Label[], fresh: readonly Label[]): Label[] {
  const seen = new Set(stored.map((l) => `${l.rolloutUid}|${l.detectorId}`));
  return [...stored, ...fresh.filter((l) => !seen.has(`${l.rolloutUid}|${l.detectorId}`))];
}
