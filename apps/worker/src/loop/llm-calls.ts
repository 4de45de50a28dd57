import { json, type Database, recordEvent } from "@evotrainer/db";
import type { LlmCall } from "@evotrainer/proposers";

/**
 * Stores one LLM call as an `llm_call` event on the branch whose report it read, and adds its
 * estimated dollars to the run's spend, in one transaction: the budget check of the next call
 * sees it, and per-branch and per-run totals are sums of these events.
 */
export async function recordLlmCall(db: Database, at: { runId: string; branchId: string; round: number }, call: LlmCall): Promise<void> {
  await db.$transaction(async (tx) => {
    await recordEvent(tx, { runId: at.runId, branchId: at.branchId, type: "llm_call", actor: `llm:${call.model}`, payload: json({ round: at.round, ...call }) });
    await tx.run.update({ where: { id: at.runId }, data: { llmDollarsUsed: { increment: call.dollars } } });
  });
}
