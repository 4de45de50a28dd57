import { llmSettingsSchema, runConfigSchema } from "@evotrainer/core";
import type { Database } from "../client.ts";
import { branchLabelRates } from "./label-rates.ts";
import { budgetProgress, type RunProgress } from "./run-progress.ts";

/** Tokens and estimated dollars of LLM proposer calls, summed from their `llm_call` events. */
export interface LlmSpend {
  calls: number;
  inputTokens: number;
  outputTokens: number;
  dollars: number;
}

export interface RunReport extends RunProgress {
  budget: RunProgress["budget"] & {
    /** The LLM proposer's dollar budget; total is null for a rule-based run. */
    llmDollars: { used: number; total: number | null };
  };
  /** Every LLM call of the run, and how many rounds fell back to the rule-based proposer. */
  llm: LlmSpend & { fallbacks: number };
  bestBranchId: string | null;
  branches: {
    id: string;
    parentId: string | null;
    version: number;
    round: number;
    status: string;
    /** candidate: trained from an intervention; control: the parent's recipe again, the round's baseline. */
    kind: "candidate" | "control";
    gpuSeconds: number;
    /** LLM calls made while designing this branch's children (they read its report), or null if none. */
    llm: LlmSpend | null;
    factor: string | null;
    provenance: string | null;
    hypothesis: string | null;
    backtest: { predictedEffect: number; realisedEffect: number | null; rank: number | null; deadGroupsRescued: number | null } | null;
    trainReward: number | null;
    promotionScore: number | null;
    verdict: { promoted: boolean; checks: { name: string; passed: boolean; blocking: boolean; detail: string; value: unknown; limit: unknown }[]; ci: [number | null, number | null] } | null;
    decision: { kind: string; actor: string; reason: string } | null;
    labels: Record<string, number>;
    /** Bytes of this branch's model weights the retention policy deleted (docs/retention.md), or null if none were. */
    weightsDeleted: { bytes: number } | null;
  }[];
  skills: { name: string; trigger: string; successes: number; failures: number }[];
  sealed: { score: number; branchId: string } | null;
  /** Why the run ended without a result (no branch trained, its sealed evaluation failed); null otherwise. */
  error: string | null;
}

interface StoredCheck {
  name: string;
  passed: boolean;
  blocking?: boolean;
  detail: string;
  numbers?: Record<string, unknown>;
}

/**
 * Everything a person needs to judge a run, read from aggregates (MetricPoint, LabelStat) and the
 * branch rows — never by scanning rollouts. The CLI's `report --json` prints exactly this.
 */
export async function buildRunReport(db: Database, runId: string): Promise<RunReport> {
  const run = await db.run.findUniqueOrThrow({
    where: { id: runId },
    include: {
      branches: {
        orderBy: { version: "asc" },
        include: { intervention: { include: { backtest: true } }, verdict: true, decisions: { orderBy: { createdAt: "desc" }, take: 1 } },
      },
      organization: { include: { skills: true } },
    },
  });
  const branchIds = run.branches.map((b) => b.id);
  const rewards = await db.metricPoint.findMany({
    where: { branchId: { in: branchIds }, name: "train/reward_mean" },
    orderBy: { step: "desc" },
    distinct: ["branchId"],
  });
  const labelRates = await branchLabelRates(db, branchIds);
  const finalReport = run.finalReport as { sealed?: { score: number; branchId: string } | null; error?: unknown } | null;
  const sealed = finalReport?.sealed ?? null;
  const spend = await llmSpendByBranch(db, run.id);
  const fallbacks = await db.event.count({ where: { runId: run.id, type: "proposer_fallback" } });
  const weightsDeleted = await weightsDeletedByBranch(db, run.id);
  const config = runConfigSchema.safeParse(run.settings);
  const llmBudget = config.success && config.data.search.proposer === "llm" ? (config.data.llm ?? llmSettingsSchema.parse({})).budgetDollars : null;

  return {
    runId: run.id,
    name: run.name,
    status: run.status,
    round: run.round,
    budget: { ...budgetProgress(run), llmDollars: { used: run.llmDollarsUsed, total: llmBudget } },
    llm: { ...sumSpend([...spend.values()]), fallbacks },
    bestBranchId: run.bestBranchId,
    branches: run.branches.map((b) => {
      const decision = b.decisions[0];
      const report = b.intervention?.backtest?.report as { deadGroups?: { rescued?: number } } | undefined;
      return {
        id: b.id,
        parentId: b.parentId,
        version: b.version,
        round: b.round,
        status: b.status,
        kind: b.kind,
        gpuSeconds: b.gpuSecondsUsed,
        llm: spend.get(b.id) ?? null,
        factor: b.intervention?.factor ?? null,
        provenance: b.intervention?.provenance ?? null,
        hypothesis: b.intervention?.hypothesis ?? null,
        backtest: b.intervention?.backtest
          ? { predictedEffect: b.intervention.backtest.predictedEffect, realisedEffect: b.intervention.backtest.realisedEffect, rank: b.intervention.backtest.rank, deadGroupsRescued: report?.deadGroups?.rescued ?? null }
          : null,
        trainReward: rewards.find((r) => r.branchId === b.id)?.value ?? null,
        promotionScore: b.promotionScore,
        verdict: b.verdict
          ? {
              promoted: b.verdict.passed,
              checks: (b.verdict.checks as unknown as StoredCheck[]).map((c) => ({
                name: c.name,
                passed: c.passed,
                // false: shown as context (the parent when a control exists), not deciding the promotion.
                blocking: c.blocking !== false,
                detail: c.detail,
                value: c.numbers?.rate ?? c.numbers?.delta ?? c.numbers?.after ?? null,
                limit: c.numbers?.limit ?? c.numbers?.margin ?? null,
              })),
              ci: [b.verdict.ciLow, b.verdict.ciHigh],
            }
          : null,
        decision: decision ? { kind: decision.kind, actor: decision.actorType, reason: decision.reason } : null,
        labels: labelRates.get(b.id) ?? {},
        weightsDeleted: weightsDeleted.has(b.id) ? { bytes: weightsDeleted.get(b.id)! } : null,
      };
    }),
    skills: run.organization.skills.map((s) => ({ name: s.name, trigger: s.trigger, successes: s.successCount, failures: s.failureCount })),
    sealed,
    error: errorText(finalReport?.error),
  };
}

/** A final report's error: a sentence (no branch trained) or a failed job's class and message (the sealed evaluation). */
function errorText(error: unknown): string | null {
  if (typeof error === "string") return error || null;
  if (!error || typeof error !== "object") return null;
  const { failureClass, message } = error as { failureClass?: unknown; message?: unknown };
  return [failureClass, message].filter((part): part is string => typeof part === "string" && part !== "").join(": ") || "failed";
}

/** Bytes deleted per branch, from the run's `retention_applied` events. */
async function weightsDeletedByBranch(db: Database, runId: string): Promise<Map<string, number>> {
  const events = await db.event.findMany({ where: { runId, type: "retention_applied" }, select: { payload: true } });
  const bytes = new Map<string, number>();
  for (const event of events) {
    for (const d of (event.payload as { deleted: { branchId: string; bytes: number }[] }).deleted) bytes.set(d.branchId, (bytes.get(d.branchId) ?? 0) + d.bytes);
  }
  return bytes;
}

/** LLM spend per branch, aggregated in Postgres from the call events' usage and dollars (the prompts stay there). */
async function llmSpendByBranch(db: Database, runId: string): Promise<Map<string | null, LlmSpend>> {
  const rows = await db.$queryRaw<{ branchId: string | null; calls: number; inputTokens: number; outputTokens: number; dollars: number }[]>`
    SELECT "branchId",
           count(*)::float8 AS "calls",
           coalesce(sum((payload->'usage'->>'inputTokens')::float8), 0) AS "inputTokens",
           coalesce(sum((payload->'usage'->>'outputTokens')::float8), 0) AS "outputTokens",
           coalesce(sum((payload->>'dollars')::float8), 0) AS "dollars"
    FROM "Event"
    WHERE "runId" = ${runId} AND "type" = 'llm_call'
    GROUP BY "branchId"`;
  return new Map(rows.map(({ branchId, ...spend }) => [branchId, spend]));
}

function sumSpend(spends: readonly LlmSpend[]): LlmSpend {
  return spends.reduce((a, b) => ({ calls: a.calls + b.calls, inputTokens: a.inputTokens + b.inputTokens, outputTokens: a.outputTokens + b.outputTokens, dollars: a.dollars + b.dollars }), {
    calls: 0,
    inputTokens: 0,
    outputTokens: 0,
    dollars: 0,
  });
}
