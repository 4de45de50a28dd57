import type { Database } from "@evotrainer/db";

export interface LlmSpend {
  calls: number;
  inputTokens: number;
  outputTokens: number;
  dollars: number;
}

/** Tokens and estimated dollars of a run's (or one branch's) LLM calls, summed in Postgres from their events. */
export async function llmSpend(db: Database, runId: string, branchId?: string): Promise<LlmSpend> {
  const [row] = await db.$queryRaw<LlmSpend[]>`
    SELECT count(*)::float8 AS "calls",
           coalesce(sum((payload->'usage'->>'inputTokens')::float8), 0) AS "inputTokens",
           coalesce(sum((payload->'usage'->>'outputTokens')::float8), 0) AS "outputTokens",
           coalesce(sum((payload->>'dollars')::float8), 0) AS "dollars"
    FROM "Event"
    WHERE "runId" = ${runId} AND "type" = 'llm_call' AND (${branchId ?? null}::text IS NULL OR "branchId" = ${branchId ?? null})`;
  return row ?? { calls: 0, inputTokens: 0, outputTokens: 0, dollars: 0 };
}
