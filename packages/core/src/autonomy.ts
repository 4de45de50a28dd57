import { z } from "zod";
import type { Decision, GateStage } from "./decision.ts";
import type { Verdict } from "./verdict.ts";

export const autonomyPolicySchema = z.strictObject({
  mode: z.enum(["full", "human_gated"]),
  // Optional stops for a person even in full autonomy.
  gates: z
    .strictObject({ diagnosis: z.boolean(), design: z.boolean(), backtest: z.boolean(), completion: z.boolean() })
    .default({ diagnosis: false, design: false, backtest: false, completion: false }),
  // After this many failed branches in a row, the run falls back to human gating.
  escalateAfterFailures: z.number().int().min(1).default(2),
  // The first branches of a domain are gated, until the method has earned trust there.
  gateFirstBranchesPerDomain: z.number().int().min(0).default(3),
});
export type AutonomyPolicy = z.infer<typeof autonomyPolicySchema>;

export interface AutonomyContext {
  /** Failed branches (rejected or vetoed) at the end of the run's history, most recent last. */
  consecutiveFailedBranches: number;
  /** Branches of this domain that already finished, across runs. */
  finishedBranchesInDomain: number;
}

export interface GateDecision {
  gated: boolean;
  reasons: string[];
}

/** Whether a person must decide at this stage, and every reason why. */
export function gateFor(policy: AutonomyPolicy, stage: GateStage, ctx: AutonomyContext): GateDecision {
  const reasons: string[] = [];
  if (policy.mode === "human_gated") reasons.push("the run is human-gated");
  else if (policy.gates[stage]) reasons.push(`the policy gates after ${stage}`);
  if (ctx.consecutiveFailedBranches >= policy.escalateAfterFailures) {
    reasons.push(`escalated: ${ctx.consecutiveFailedBranches} consecutive failed branches (limit ${policy.escalateAfterFailures})`);
  }
  if (ctx.finishedBranchesInDomain < policy.gateFirstBranchesPerDomain) {
    reasons.push(`branch ${ctx.finishedBranchesInDomain + 1} of the domain; the first ${policy.gateFirstBranchesPerDomain} are gated`);
  }
  return { gated: reasons.length > 0, reasons };
}

/**
 * Whether a round's candidates wait for a person before they train. Only the policy's own design gate
 * asks this: escalation and the first branches of a domain gate the completion decision, where the
 * evidence is.
 */
export function designGateFor(policy: AutonomyPolicy): GateDecision {
  return policy.gates.design ? { gated: true, reasons: ["the policy gates after design"] } : { gated: false, reasons: [] };
}

export interface BranchOutcome {
  verdict?: Pick<Verdict, "promote">;
  decisions: readonly Decision[];
}

/** A branch failed when its gate rejected it or its last completion decision vetoed it. */
export function branchFailed(b: BranchOutcome): boolean {
  const last = b.decisions.filter((d) => d.stage === "completion").at(-1);
  if (last) return last.kind === "veto";
  return b.verdict !== undefined && !b.verdict.promote;
}

/** Failed branches at the end of a history (oldest first); unfinished branches are skipped. */
export function consecutiveFailures(history: readonly BranchOutcome[]): number {
  let n = 0;
  for (let i = history.length - 1; i >= 0; i--) {
    const b = history[i]!;
    if (b.verdict === undefined && !b.decisions.some((d) => d.stage === "completion")) continue;
    if (!branchFailed(b)) break;
    n++;
  }
  return n;
}

/** The policy's own completion decision when no person is asked: follow the verdict, citing failed checks. */
export function policyDecision(v: Verdict): Decision {
  if (v.promote) return { kind: "approve", stage: "completion", actor: { kind: "policy" }, note: "all gate checks passed" };
  const failed = v.checks.filter((c) => !c.passed && c.blocking !== false).map((c) => `${c.name}: ${c.detail}`);
  return { kind: "veto", stage: "completion", actor: { kind: "policy" }, reason: failed.join("; ") };
}
