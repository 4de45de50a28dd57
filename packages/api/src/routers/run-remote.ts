import { TRPCError, type TRPCRouterRecord } from "@trpc/server";
import { z } from "zod";
import { runConfigSchema, trainerArgFields, trlArgProblems, uncontrolledRunWarning, unlimitedValidityWarning, type RunConfig } from "@evotrainer/core";
import { buildRunReport, createRun } from "@evotrainer/db";
import { askTrainerArgs, QueueName } from "@evotrainer/queue";
import { sealedReleased } from "../auth/sealed-split.ts";
import { decidingOrganization } from "../auth/deciding-organization.ts";
import { accessRun, protectedProcedure, userProcedure } from "../trpc.ts";

/**
 * What the CLI needs from a server it is logged in to (`evotrainer login`): a run's report, the
 * latest run, and starting a run from a config. Each goes through the same access rules as a page.
 */
export const runRemoteRouter = {
  /** The run report `evotrainer report --json` prints; the latest run of the caller's organizations when no id is given. */
  report: protectedProcedure.input(z.object({ runId: z.string().min(1).optional() })).query(async ({ ctx, input }) => {
    let runId = input.runId ?? (ctx.principal.kind === "share" ? ctx.principal.runId : undefined);
    if (!runId && ctx.principal.kind === "user") {
      const latest = await ctx.db.run.findFirst({ where: { organization: { memberships: { some: { userId: ctx.principal.userId } } } }, orderBy: { createdAt: "desc" }, select: { id: true } });
      if (!latest) throw new TRPCError({ code: "NOT_FOUND", message: "no runs yet: start one with `evotrainer run <config.yaml>`" });
      runId = latest.id;
    }
    await accessRun(ctx, runId!);
    const report = await buildRunReport(ctx.db, runId!);
    // A share link sees the sealed score only once the run released it, as on its pages.
    if (ctx.principal.kind === "share" && !(await sealedReleased(ctx.db, runId!))) return { ...report, sealed: null };
    return report;
  }),

  /**
   * Starts a run from a config (the YAML's content): approver or admin of the organization it lands
   * in. Its trainer arguments are first checked by a worker where its jobs would run (this server
   * has neither the nodes' keys nor the cluster's credentials): a key the trainer does not take
   * refuses the run, naming its field; with no answer in time the run is created, and `trainerArgs`
   * says why it went unchecked. `warning` says what a run without a control costs, and which validity labels the gate leaves to a person (null when neither).
   */
  create: userProcedure.input(z.object({ config: z.unknown(), organizationId: z.string().min(1).optional() })).mutation(async ({ ctx, input }) => {
    const config = parsedRunConfig(input.config);
    // The same refusals as a local `evotrainer run`: keys a recipe factor owns, values no job renders with.
    const problems = trlArgProblems(config);
    if (problems.length > 0) throw new TRPCError({ code: "BAD_REQUEST", message: `invalid run config:\n${problems.map((line) => `  - ${line}`).join("\n")}` });
    const organizationId = await decidingOrganization(ctx, input.organizationId);
    const trainerArgs = trainerArgFields(config) ? await askTrainerArgs(ctx.producer(), config, ctx.trainerArgsWaits) : null;
    if (trainerArgs?.verdict === "refused") {
      throw new TRPCError({ code: "BAD_REQUEST", message: `invalid run config:\n${trainerArgs.problems.map((line) => `  - ${line}`).join("\n")}` });
    }
    const { runId, baseBranchId } = await createRun(ctx.db, config, { organizationId });
    // After commit: the reconciler dispatches a queued base branch if Redis is away.
    const enqueued = await ctx
      .producer()
      .enqueue(QueueName.Dispatch, { runId, branchId: baseBranchId })
      .then(() => true)
      .catch(() => false);
    // Said by the caller, which reads it before it reports the run started.
    return { runId, baseBranchId, enqueued, trainerArgs, warning: [uncontrolledRunWarning(config), unlimitedValidityWarning(config)].filter((w) => w !== null).join("; ") || null };
  }),
} satisfies TRPCRouterRecord;

/** A run config sent by the CLI, checked here as the CLI checks a local one; every problem named by its path. */
export function parsedRunConfig(config: unknown): RunConfig {
  const parsed = runConfigSchema.safeParse(config);
  if (parsed.success) return parsed.data;
  throw new TRPCError({ code: "BAD_REQUEST", message: `invalid run config: ${parsed.error.issues.map((i) => `${i.path.join(".") || "(top level)"}: ${i.message}`).join("; ")}` });
}
