import type { Prisma, Tx } from "@evotrainer/db";

/** The LLM proposer's ledger rows: each call, each fallback to the rule-based proposer, each replay of its detectors. */
export type LlmEventType = "llm_call" | "proposer_fallback" | "llm_detectors";

/** Appends one of them to the run's ledger, like recordEvent does for the loop's own event types. */
export function recordLlmEvent(
  tx: Tx,
  event: { runId: string; branchId: string | null; type: LlmEventType; actor: string; payload: Prisma.InputJsonValue },
): Promise<unknown> {
  return tx.event.create({ data: event });
}
