import type { TRPCRouterRecord } from "@trpc/server";
import { z } from "zod";
import { admitVetoOverride } from "@evotrainer/core";
import { accessBranch, protectedProcedure } from "../trpc.ts";
import { llmSpend } from "./llm-spend.ts";

export const branchRouter = {
  byId: protectedProcedure.input(z.object({ branchId: z.string().min(1) })).query(async ({ ctx, input }) => {
    const { runId, role } = await accessBranch(ctx, input.branchId);
    const branch = await ctx.db.branch.findUniqueOrThrow({
      where: { id: input.branchId },
      select: {
        id: true,
        runId: true,
        parentId: true,
        version: true,
        round: true,
        status: true,
        promotionScore: true,
        gpuSecondsUsed: true,
        checkpoint: true,
        createdAt: true,
        run: { select: { id: true, name: true, bestBranchId: true, status: true } },
        parent: { select: { version: true, recipe: { select: { hash: true, canonical: true } } } },
        recipe: { select: { hash: true, canonical: true } },
        intervention: {
          select: {
            hypothesis: true,
            targetMetric: true,
            factor: true,
            patch: true,
            expectedEffect: true,
            falsification: true,
            provenance: true,
            skill: { select: { name: true } },
            backtest: true,
          },
        },
        verdict: true,
        jobs: {
          orderBy: { createdAt: "asc" },
          select: {
            id: true,
            kind: true,
            executor: true,
            adapter: true,
            state: true,
            failureClass: true,
            attempts: true,
            maxAttempts: true,
            exitCode: true,
            message: true,
            logTail: true,
            gpuSeconds: true,
            startedAt: true,
            finishedAt: true,
            node: { select: { name: true } },
            externalId: true,
          },
        },
        decisions: { orderBy: { createdAt: "desc" }, select: { id: true, stage: true, kind: true, actorType: true, reason: true, instructions: true, createdAt: true, user: { select: { name: true } } } },
      },
    });
    // A branch diagnosed as a parent has its newest diagnosis (an event); every judged branch has the
    // report its verdict read, stored with the verdict.
    const diagnosis = await ctx.db.event.findFirst({
      where: { branchId: input.branchId, type: "diagnosis" },
      orderBy: { id: "desc" },
      select: { payload: true, createdAt: true },
    });
    const judged = diagnosis ? null : await ctx.db.verdict.findUnique({ where: { branchId: input.branchId }, select: { healthReport: true, createdAt: true } });
    const health = diagnosis ?? (judged?.healthReport ? { payload: judged.healthReport, createdAt: judged.createdAt } : null);
    // LLM calls that read this branch's report to design its children, next to its GPU-seconds.
    const llm = await llmSpend(ctx.db, runId, input.branchId);
    const jobs = branch.jobs.map(({ externalId, ...j }) => {
      // The CLI records an import as a job of its own, under "import:<what>:<path>" (see apps/cli import-target).
      const imported = externalId?.startsWith("import:") ?? false;
      // A share link never sees where a team's files live, nor an eval job's log: it may quote the
      // sealed split's tasks and answers.
      const hidden = ctx.principal.kind === "share" && (imported || j.kind === "eval");
      return { ...j, imported, ...(hidden ? { logTail: null, message: null } : {}) };
    });
    // The same rule the override itself checks: the page offers it only where it would be admitted.
    const completions = [...branch.decisions].reverse().filter((d) => d.stage === "completion");
    const admission = admitVetoOverride({ status: branch.status, isBase: branch.parentId === null, runStatus: branch.run.status, completionDecisions: completions.map((d) => ({ id: d.id, kind: d.kind, actor: d.actorType })) });
    const vetoOverride = admission.outcome === "admitted" ? { open: true as const } : { open: false as const, reason: admission.reason, message: admission.message };
    return { ...branch, jobs, health, role, llm, vetoOverride };
  }),
} satisfies TRPCRouterRecord;
