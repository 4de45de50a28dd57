import { calibrationSummary, type CalibrationRecord, type Check, type Prediction } from "@evotrainer/core";
import type { Database } from "@evotrainer/db";
import type { LlmContext, PastProposal } from "@evotrainer/proposers";

// Moves smaller than this count as flat, as core's realisedEffect counts them.
const FLAT = 1e-9;

/**
 * Every earlier proposal of the run, in order, with its backtest and, for a settled branch, how the
 * targeted metric moved (the verdict's targeted-metric check); and how well the backtests'
 * predictions matched those moves.
 */
export async function loadProposalHistory(db: Database, runId: string): Promise<Pick<LlmContext, "history" | "calibration">> {
  const rows = await db.intervention.findMany({
    where: { runId },
    orderBy: [{ round: "asc" }, { createdAt: "asc" }],
    include: { backtest: true, branch: { select: { id: true, version: true, status: true, verdict: { select: { checks: true } } } } },
  });
  const records: CalibrationRecord[] = [];
  const history = rows.map((row): PastProposal => {
    const predicted = (row.backtest?.report as { predicted?: Prediction } | undefined)?.predicted;
    const target = (row.branch?.verdict?.checks as Check[] | undefined)?.find((c) => c.name === "targeted_metric");
    const { before, after, delta } = target?.numbers ?? {};
    const realised = typeof before === "number" && typeof after === "number" && typeof delta === "number" ? { before, after, delta } : undefined;
    if (row.branch && predicted && realised) {
      records.push({
        branchId: row.branch.id,
        metric: predicted.metric,
        predicted: { direction: predicted.direction, size: predicted.size, basis: predicted.basis },
        realised: { metric: predicted.metric, ...realised, direction: Math.abs(delta as number) <= FLAT ? "flat" : (delta as number) > 0 ? "up" : "down" },
      });
    }
    return {
      round: row.round,
      factor: row.factor,
      hypothesis: row.hypothesis,
      targetMetric: row.targetMetric,
      provenance: row.provenance,
      status: row.status,
      ...(row.rejectionReason ? { rejection: row.rejectionReason } : {}),
      ...(row.backtest && predicted ? { backtest: { predicted, rank: row.backtest.rank, kept: row.backtest.kept } } : {}),
      ...(row.branch ? { outcome: { version: row.branch.version, status: row.branch.status, ...(realised ? { realised } : {}) } } : {}),
    };
  });
  return { history, calibration: calibrationSummary(records) };
}
