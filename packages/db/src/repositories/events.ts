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
  | "awaiting_decision"
  | "decision"
  | "promotion"
  | "harness_check"
  | "harness_version"
  | "skill"
  | "run_finishing"
  | "run_finished";

/** Appends one row to the run's ledger (the table rejects updates). */
export function recordEvent(
  tx: Tx,
  event: { runId: string; branchId?: string | null; type: EventType; actor: string; payload: Prisma.InputJsonValue },
): Promise<unknown> {
  return tx.event.create({ data: { ...event, branchId: event.branchId ?? null } });
}
