import type { Prisma } from "../generated/prisma/client.ts";
import { enqueueNotification } from "./notifications.ts";

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
  // A candidate whose rendered job is its parent's: cancelled before training, counted as no intervention.
  | "no_op_intervention"
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
  // A person's run control (approver or admin), each with its actor; a stop's jobs are then cancelled by the worker.
  | "run_paused"
  | "run_resumed"
  | "run_stop_requested"
  | "run_stopped"
  | "job_cancel_requested"
  | "job_cancelled"
  | "budget_extended"
  // The LLM proposer's: each call, each fallback to the rule-based proposer, each replay of its detectors.
  | "llm_call"
  | "proposer_fallback"
  | "llm_detectors"
  // A person's review of one label on one rollout (or one imported from a truth file).
  | "label_review"
  // The run's spend crossed 80% of its GPU budget; recorded once per run.
  | "budget_80"
  // Model weights the retention policy deleted (after the run, or by `evotrainer gc`), with their sizes.
  | "retention_applied";

/**
 * Appends one row to the run's ledger (the table rejects updates), and, for events that notify,
 * its outbox row in the same transaction so no notification is lost or sent for a rolled-back event.
 */
export async function recordEvent(
  tx: Tx,
  event: { runId: string; branchId?: string | null; type: EventType; actor: string; payload: Prisma.InputJsonValue },
): Promise<unknown> {
  const row = await tx.event.create({ data: { ...event, branchId: event.branchId ?? null } });
  await enqueueNotification(tx, event);
  return row;
}
