import type { Prisma } from "../generated/prisma/client.ts";

export type Tx = Prisma.TransactionClient;

export type EventType =
  | "run_created"
  | "diagnosis"
  | "proposal"
  | "proposal_rejected"
  | "backtest"
  | "branch_created"
  | "dispatch"
  | "job_retry"
  | "failure"
  | "training_finished"
  | "verdict"
  // A control branch trained and evaluated: its score is the round's baseline and a seed replicate.
  | "control_measured"
  | "awaiting_decision"
  | "decision"
  // A completion decision applied: the branch promoted, rejected or vetoed.
  | "branch_settled"
  | "promotion"
  | "harness_check"
  | "harness_version"
  | "skill"
  | "run_finishing"
  | "run_finished"
  // The LLM proposer's: each call, each fallback to the rule-based proposer, each replay of its detectors.
  | "llm_call"
  | "proposer_fallback"
  | "llm_detectors";

/** Appends one row to the run's ledger (the table rejects updates). */
export function recordEvent(
  tx: Tx,
  event: { runId: string; branchId?: string | null; type: EventType; actor: string; payload: Prisma.InputJsonValue },
): Promise<unknown> {
  return tx.event.create({ data: { ...event, branchId: event.branchId ?? null } });
}
