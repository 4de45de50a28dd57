import type { Check, Intervention, LineageEntry } from "@evotrainer/core";
import type { Database } from "@evotrainer/db";
import { coreDecision } from "./core-decision.ts";

/** Every branch of the run as a proposer sees it: intervention, verdict, decisions (veto reasons included). */
export async function loadLineage(db: Database, runId: string): Promise<LineageEntry[]> {
  const branches = await db.branch.findMany({
    // Controls change nothing: the proposer learns from interventions only.
    where: { runId, kind: "candidate" },
    orderBy: { version: "asc" },
    include: { recipe: true, intervention: true, verdict: true, decisions: { orderBy: { createdAt: "asc" } } },
  });
  return branches.map((b) => ({
    branchId: b.id,
    ...(b.parentId ? { parentBranchId: b.parentId } : {}),
    recipeHash: b.recipe.hash,
    ...(b.intervention
      ? {
          intervention: {
            hypothesis: b.intervention.hypothesis,
            targetMetric: b.intervention.targetMetric,
            factor: b.intervention.factor,
            patch: b.intervention.patch,
            expectedEffect: b.intervention.expectedEffect,
            falsification: b.intervention.falsification,
            provenance: { kind: b.intervention.provenance },
          } as Intervention,
        }
      : {}),
    ...(b.verdict
      ? {
          verdict: {
            promote: b.verdict.passed,
            checks: b.verdict.checks as unknown as Check[],
            vsParent: { tasks: 0, delta: b.verdict.deltaVsParent ?? 0, ci: [b.verdict.ciLow ?? 0, b.verdict.ciHigh ?? 0], confidence: 0.95, pNotBetter: 0 },
            vsBest: { tasks: 0, delta: 0, ci: [0, 0], confidence: 0.95, pNotBetter: 0 },
          },
        }
      : {}),
    decisions: b.decisions.map(coreDecision),
  }));
}
