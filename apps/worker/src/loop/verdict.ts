import {
  baselineChecks,
  consecutiveFailures,
  gateFor,
  policyDecision,
  verdict as judge,
  type BranchMetrics,
  type GatePolicy,
  type HealthReport,
  type Intervention,
  validityLabelsOf,
} from "@evotrainer/core";
import { json, recordDecision, recordEvent, runLabelTrust, type DecisionRecord } from "@evotrainer/db";
import { coreDecision } from "./core-decision.ts";
import type { LoopDeps } from "./deps.ts";
import { runConfigOf } from "@evotrainer/core";
import { gateSide } from "./gate-side.ts";
import { measureControl, roundComparison } from "./round-controls.ts";
import { settleBranch } from "./settle-branch.ts";

/**
 * Gates a trained candidate against its round's control (the parent as context) and the best so far
 * when its round started (the parent), then decides or asks a person. A control is only measured; a
 * candidate waits until every sibling of its round has finished training.
 */
export async function verdict(deps: LoopDeps, payload: { runId: string; branchId: string }): Promise<string> {
  const { db } = deps;
  const branch = await db.branch.findUniqueOrThrow({
    where: { id: payload.branchId },
    include: { run: true, intervention: true, verdict: true, decisions: { where: { stage: "completion" }, orderBy: { createdAt: "desc" }, take: 1 } },
  });
  if (branch.status !== "evaluating") return `branch is ${branch.status}`;
  // Judged before a crash: the verdict and the policy's decision were committed together; settle it.
  if (branch.verdict && branch.decisions[0]) return settleBranch(deps, branch.id, branch.decisions[0].id);
  const config = runConfigOf(branch.run);
  const { harness } = await deps.harnesses.get(branch.run.harnessVersionId!);
  if (branch.kind === "control") return measureControl(deps, harness, branch);
  let vsControl = null;
  let controlCrit: string[] | undefined;
  let controlMetrics: BranchMetrics[] | undefined;
  if (branch.parentId && config.search.control === "sibling") {
    const comparison = await roundComparison(deps, harness, { ...branch, parentId: branch.parentId }, config);
    if ("waiting" in comparison) return comparison.waiting;
    ({ vsControl, controlCrit, controlMetrics } = comparison);
  }
  const candidate = await gateSide(deps, harness, branch.id);

  if (!branch.parentId || !branch.intervention) return judgeBaseline(deps, branch, candidate, config.gate);

  // The best so far is the one the round started from: every round is proposed on the run's best, so
  // it is the parent. The run's best now would depend on which sibling finished first, and the same
  // run would get different verdicts in different job orders.
  const parent = await gateSide(deps, harness, branch.parentId);
  const intervention = branch.intervention as unknown as Pick<Intervention, "targetMetric" | "expectedEffect">;
  const labelTrust = config.gate.labelQuality ? await runLabelTrust(db, branch.runId) : undefined;
  const result = judge({ candidate, parent, intervention, policy: config.gate, seed: config.seed + branch.version, vsControl, validityLabels: validityLabelsOf(harness), ...(controlCrit ? { controlCrit } : {}), ...(controlMetrics ? { controlMetrics } : {}), ...(labelTrust ? { labelTrust } : {}) });

  const history = await db.branch.findMany({
    where: { runId: branch.runId, parentId: { not: null }, kind: "candidate", verdict: { isNot: null } },
    orderBy: { updatedAt: "asc" },
    include: { verdict: true, decisions: true },
  });
  const outcomes = history.map((b) => ({ verdict: { promote: b.verdict!.passed }, decisions: b.decisions.map(coreDecision) }));
  const finishedInDomain = await db.verdict.count({ where: { branch: { run: { domain: config.domain, organizationId: branch.run.organizationId } } } });
  const policyGate = gateFor(config.autonomy, "completion", {
    consecutiveFailedBranches: consecutiveFailures(outcomes),
    finishedBranchesInDomain: finishedInDomain,
  });
  // Too few controls to measure the seed noise, a verdict resting on a label without the reviewed
  // quality gate.labelQuality asks for, or a validity label present but not limited: the gate cannot
  // judge alone, so a person decides.
  const personReasons = [...(vsControl?.notEnoughControls ? [vsControl.reason] : []), ...(result.needsPerson ?? [])];
  const gate = personReasons.length > 0 ? { gated: true, reasons: [...policyGate.reasons, ...personReasons] } : policyGate;

  // The verdict and, without a gate, the policy's decision commit together, so a repeat of this
  // step after a crash finds both and only settles.
  const decision = gate.gated ? null : policyDecision(result);
  const decisionId = await db.$transaction(async (tx) => {
    await tx.verdict.create({
      data: {
        branchId: branch.id,
        passed: result.promote,
        checks: json(result.checks),
        promotionScore: candidate.score,
        parentScore: parent.score,
        bestScore: parent.score,
        deltaVsParent: result.vsParent.delta,
        ciLow: result.vsParent.ci[0],
        ciHigh: result.vsParent.ci[1],
        healthReport: storedReport(candidate.report),
      },
    });
    await tx.branch.update({ where: { id: branch.id }, data: { promotionScore: candidate.score, status: gate.gated ? "awaiting_decision" : "evaluating" } });
    // The backtest predicted how the targeted metric would move; training has now shown how it did.
    const realised = result.checks.find((c) => c.name === "targeted_metric")?.numbers.delta;
    if (typeof realised === "number") await tx.backtest.updateMany({ where: { intervention: { branch: { id: branch.id } } }, data: { realisedEffect: realised } });
    await recordEvent(tx, {
      runId: branch.runId,
      branchId: branch.id,
      type: "verdict",
      actor: "system",
      payload: json({ promote: result.promote, promotionScore: candidate.score, parentScore: parent.score, checks: result.checks.map((c) => ({ name: c.name, passed: c.passed, detail: c.detail })) }),
    });
    if (!decision) {
      await recordEvent(tx, { runId: branch.runId, branchId: branch.id, type: "awaiting_decision", actor: "system", payload: { reasons: gate.reasons, recommended: result.promote ? "approve" : result.needsPerson ? "decide" : "veto" } });
      return null;
    }
    return policyDecisionId(
      await recordDecision(tx, {
        branchId: branch.id,
        kind: decision.kind,
        actor: { kind: "policy" },
        reason: decision.kind === "veto" ? decision.reason : decision.kind === "revise" ? decision.instructions : (decision.note ?? "all gate checks passed"),
      }),
    );
  });
  if (!decisionId) return `awaiting a decision: ${gate.reasons.join("; ")}`;
  await deps.failpoint("verdict:decided");
  return settleBranch(deps, branch.id, decisionId);
}

/**
 * The run's first branch has no parent: it is judged on its own health and validity only, and it
 * is the reference (best so far) whatever the outcome, since every later branch descends from it.
 */
async function judgeBaseline(
  deps: LoopDeps,
  branch: { id: string; runId: string },
  candidate: Awaited<ReturnType<typeof gateSide>>,
  policy: GatePolicy,
): Promise<string> {
  const checks = baselineChecks(candidate.report, policy);
  const passed = checks.every((c) => c.passed);
  const failed = checks.filter((c) => !c.passed).map((c) => `${c.name}: ${c.detail}`);
  const decisionId = await deps.db.$transaction(async (tx) => {
    await tx.verdict.create({ data: { branchId: branch.id, passed, checks: json(checks), promotionScore: candidate.score, healthReport: storedReport(candidate.report) } });
    await tx.branch.update({ where: { id: branch.id }, data: { promotionScore: candidate.score } });
    await tx.run.update({ where: { id: branch.runId }, data: { bestBranchId: branch.id } });
    await recordEvent(tx, {
      runId: branch.runId,
      branchId: branch.id,
      type: "verdict",
      actor: "system",
      payload: json({ base: true, promote: passed, promotionScore: candidate.score, checks: checks.map((c) => ({ name: c.name, passed: c.passed, detail: c.detail })) }),
    });
    return policyDecisionId(
      await recordDecision(tx, { branchId: branch.id, kind: passed ? "approve" : "veto", actor: { kind: "policy" }, reason: passed ? "baseline checks passed" : failed.join("; ") }),
    );
  });
  await deps.failpoint("verdict:decided");
  return settleBranch(deps, branch.id, decisionId);
}

/** The policy decides inside the verdict's transaction; a refusal there means another worker judged the branch first. */
function policyDecisionId(recorded: DecisionRecord): string {
  if (recorded.outcome === "refused") throw new Error(`the policy's decision was refused: ${recorded.message}`);
  return recorded.decisionId;
}

/** What the dashboard shows of a report, in the shape diagnosis records it. */
function storedReport(report: HealthReport) {
  return json({ harnessVersion: report.harnessVersion, worst: report.worst, metrics: report.metrics, layers: report.layers });
}
