import { TRPCError, type TRPCRouterRecord } from "@trpc/server";
import { z } from "zod";
import { metricsLineSchema } from "@evotrainer/contract";
import { adapterNameSchema } from "@evotrainer/core";
import { discardEmptyImport, importJob, importSummary, importTarget, type ImportTarget } from "@evotrainer/db";
import { branchLabeler, ingestLines, storedCursor, writeTrainerMetrics } from "@evotrainer/db/ingest";
import { QueueName } from "@evotrainer/queue";
import { decidingOrganization } from "../auth/deciding-organization.ts";
import { TRPC_BODY_LIMIT_BYTES } from "../input/body-limit.ts";
import { requireRunRole, runIdOfBranch, userProcedure, type Context } from "../trpc.ts";
import { parsedRunConfig } from "./run-remote.ts";

const cursorSchema = z.object({ byteOffset: z.number().int().nonnegative(), lineNumber: z.number().int().nonnegative() });
const sourceOfJob = { jobId: z.string().min(1), source: z.string().min(1).max(4_000) };

/** The import job and its branch, for an approver or admin of its run's organization. */
async function importOwner(ctx: Parameters<typeof requireRunRole>[0], jobId: string) {
  const job = await ctx.db.job.findUnique({ where: { id: jobId }, select: { id: true, branchId: true, externalId: true, branch: { select: { runId: true } } } });
  if (!job?.externalId?.startsWith("import:")) throw new TRPCError({ code: "NOT_FOUND", message: "no such import: start it again with `evotrainer import …`" });
  await requireRunRole(ctx, job.branch.runId, "approver");
  return { runId: job.branch.runId, branchId: job.branchId, jobId: job.id };
}

function ingestPool(ctx: Pick<Context, "ingestPool">) {
  if (!ctx.ingestPool) throw new TRPCError({ code: "PRECONDITION_FAILED", message: "this server takes no imports: it was started without an ingest pool" });
  return ctx.ingestPool();
}

/**
 * `evotrainer import` and `ingest` from a machine logged in to this server: the CLI reads and converts
 * the files where they are, and sends their rollout lines here in batches; labelling, quarantine and
 * storing happen here, exactly as for a local import (one transaction per batch, with its cursor), so a
 * cut connection resumes from the stored cursor and nothing is added twice. Approver or admin only.
 */
export const importRouter = {
  /** Where the import lands: a new run from a config, a new base branch of a run, or an existing branch (ingest). */
  begin: userProcedure
    .input(
      z.object({
        /** What the files are (verl, trl, mini-swe-agent, …) and where they were read, as the CLI names them. */
        format: z.string().min(1).max(40).optional(),
        adapter: adapterNameSchema.optional(),
        dir: z.string().min(1).max(4_000),
        into: z.union([
          z.object({ runId: z.string().min(1) }),
          z.object({ branchId: z.string().min(1) }),
          z.object({ config: z.unknown(), organizationId: z.string().min(1).optional() }),
        ]),
      }),
    )
    .mutation(async ({ ctx, input }): Promise<ImportTarget> => {
      const actor = `user:${ctx.userId}`;
      const where = { dir: input.dir, actor, ...(input.format ? { format: input.format } : {}) };
      try {
        if ("branchId" in input.into) {
          const runId = await runIdOfBranch(ctx.db, input.into.branchId);
          await requireRunRole(ctx, runId, "approver", "branch");
          const branch = await ctx.db.branch.findUniqueOrThrow({ where: { id: input.into.branchId }, select: { version: true } });
          const { config } = await branchLabeler(ctx.db, input.into.branchId);
          const job = await importJob(ctx.db, { branchId: input.into.branchId, externalId: `import:${input.dir}`, adapter: config.adapter, message: `imported from ${input.dir}` });
          return { runId, branchId: input.into.branchId, branchVersion: branch.version, jobId: job.id, created: job.created };
        }
        if ("runId" in input.into) {
          await requireRunRole(ctx, input.into.runId, "approver");
          return await importTarget(ctx.db, { ...where, runId: input.into.runId, ...(input.adapter ? { adapter: input.adapter } : {}) });
        }
        const config = parsedRunConfig(input.into.config);
        const organizationId = await decidingOrganization(ctx, input.into.organizationId);
        return await importTarget(ctx.db, { ...where, config, organizationId, createdById: ctx.userId });
      } catch (error) {
        if (error instanceof TRPCError) throw error;
        // importTarget's refusals (another config, no such run) are the caller's to fix.
        throw new TRPCError({ code: "BAD_REQUEST", message: error instanceof Error ? error.message : String(error) });
      }
    }),

  /** Where this source's ingest stands, with the hash of the first bytes read, so the CLI can tell a rewritten file. */
  cursor: userProcedure.input(z.object(sourceOfJob)).query(async ({ ctx, input }) => {
    const owner = await importOwner(ctx, input.jobId);
    return storedCursor(ingestPool(ctx), owner.jobId, input.source);
  }),

  /**
   * One batch of a source's lines, read from `from` up to `next`. Refused with the stored cursor
   * (`cursor_moved`) when another upload moved it meanwhile; the CLI goes on from there.
   */
  append: userProcedure
    // A line is stored as it was read (invalid UTF-8 flagged); a batch is about 2 MB of lines.
    .meta({ rawText: { path: /^lines\.\d+\.text$/, maxLength: TRPC_BODY_LIMIT_BYTES } })
    .input(
      z.object({
        ...sourceOfJob,
        from: cursorSchema,
        next: cursorSchema.extend({ headHash: z.string().regex(/^[0-9a-f]{64}$/).nullable() }),
        lines: z.array(z.object({ lineNumber: z.number().int().positive(), text: z.string(), invalidUtf8: z.boolean() })).max(100_000),
        unreadable: z.array(z.object({ lineNumber: z.number().int().positive(), reason: z.string().max(2_000), raw: z.string().max(2_000) })).max(100_000).default([]),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      const owner = await importOwner(ctx, input.jobId);
      const { labeler } = await branchLabeler(ctx.db, owner.branchId);
      const outcome = await ingestLines(
        ingestPool(ctx),
        { owner, source: input.source, keepText: () => true, labeler },
        { lines: input.lines, unreadable: input.unreadable, from: input.from, next: input.next },
      );
      // The batch is committed; its search indexing is the worker's. Without Redis the reconcile sweep finds the branch.
      if (outcome.outcome === "stored" && outcome.inserted > 0) {
        await Promise.resolve()
          .then(() => ctx.producer().enqueue(QueueName.Search, { branchId: owner.branchId }))
          .catch(() => undefined);
      }
      return outcome;
    }),

  /** A trainer's metrics per step, as the branch's `trainer/<key>` series. */
  metrics: userProcedure
    .input(z.object({ jobId: z.string().min(1), steps: z.array(metricsLineSchema).max(1_000_000) }))
    .mutation(async ({ ctx, input }) => {
      const owner = await importOwner(ctx, input.jobId);
      return writeTrainerMetrics(ingestPool(ctx), owner.branchId, input.steps);
    }),

  /** What the import left: its quarantined lines and its branch's labels. */
  summary: userProcedure.input(z.object({ jobId: z.string().min(1), sources: z.array(z.string().max(4_000)).max(10_000) })).query(async ({ ctx, input }) => {
    const owner = await importOwner(ctx, input.jobId);
    return importSummary(ctx.db, { jobId: owner.jobId, branchId: owner.branchId, sources: input.sources });
  }),

  /** An import that stored nothing takes back the run or branch it created; one holding anything stays. */
  discard: userProcedure.input(z.object({ jobId: z.string().min(1) })).mutation(async ({ ctx, input }) => {
    const owner = await importOwner(ctx, input.jobId);
    return discardEmptyImport(ctx.db, owner);
  }),
} satisfies TRPCRouterRecord;
