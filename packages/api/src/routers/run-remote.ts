import { TRPCError, type TRPCRouterRecord } from "@trpc/server";
import { z } from "zod";
import { runConfigSchema } from "@evotrainer/core";
import { buildRunReport, createRun } from "@evotrainer/db";
import { QueueName } from "@evotrainer/queue";
import { sealedReleased } from "../auth/sealed-split.ts";
import { accessRun, protectedProcedure, requireOrganizationRole, userProcedure } from "../trpc.ts";

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

  /** Starts a run from a config (the YAML's content): approver or admin of the organization it lands in. */
  create: userProcedure.input(z.object({ config: z.unknown(), organizationId: z.string().min(1).optional() })).mutation(async ({ ctx, input }) => {
    const parsed = runConfigSchema.safeParse(input.config);
    if (!parsed.success) {
      throw new TRPCError({ code: "BAD_REQUEST", message: `invalid run config: ${parsed.error.issues.map((i) => `${i.path.join(".") || "(top level)"}: ${i.message}`).join("; ")}` });
    }
    let organizationId = input.organizationId;
    if (!organizationId) {
      const deciding = await ctx.db.membership.findMany({ where: { userId: ctx.userId, role: { in: ["approver", "admin"] } }, select: { organizationId: true } });
      if (deciding.length === 0) throw new TRPCError({ code: "FORBIDDEN", message: "starting a run needs the approver role in an organization: ask one of its admins" });
      if (deciding.length > 1) throw new TRPCError({ code: "BAD_REQUEST", message: "you approve in several organizations: name one with --org <organizationId>" });
      organizationId = deciding[0]!.organizationId;
    }
    await requireOrganizationRole(ctx, organizationId, "approver");
    const { runId, baseBranchId } = await createRun(ctx.db, parsed.data, { organizationId });
    // After commit: the reconciler dispatches a queued base branch if Redis is away.
    const enqueued = await ctx
      .producer()
      .enqueue(QueueName.Dispatch, { runId, branchId: baseBranchId })
      .then(() => true)
      .catch(() => false);
    return { runId, baseBranchId, enqueued };
  }),
} satisfies TRPCRouterRecord;
