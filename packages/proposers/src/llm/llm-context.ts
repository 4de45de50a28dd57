import type { Rollout } from "@evotrainer/contract";
import type { CalibrationSummary, Label, Prediction } from "@evotrainer/core";

/** An earlier proposal of the run: what was proposed, how its backtest ranked it, what training realised. */
export interface PastProposal {
  round: number;
  factor: string;
  hypothesis: string;
  targetMetric: string;
  provenance: string;
  /** selected, discarded (backtested but not kept) or rejected (by a gate). */
  status: string;
  rejection?: string;
  backtest?: { predicted: Prediction; rank: number | null; kept: boolean };
  /** The branch it became, once settled: its status and how the targeted metric actually moved. */
  outcome?: { version: number; status: string; realised?: { before: number; after: number; delta: number } };
}

/** What the LLM proposer reads beyond core's ProposerInput. */
export interface LlmContext {
  /** The parent's rollouts behind the report, and their labels: examples are drawn from the training split only. */
  rollouts: readonly Rollout[];
  labels: readonly Label[];
  history: readonly PastProposal[];
  calibration?: CalibrationSummary;
}
