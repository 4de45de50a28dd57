import { TRPCError, type TRPCRouterRecord } from "@trpc/server";
import { z } from "zod";
import { Domain, gateCalibrationForRun, RunStatus, type Prisma } from "@evotrainer/db";
import { accessRun, protectedProcedure, userProcedure } from "../trpc.ts";
import { fallbackPayloadSchema, llmCallPayloadSchema, proposerSettingsSchema } from "./llm-event-payloads.ts";
import { sealedReleased } from "../auth/sealed-split.ts";
import { int64Id } from "./ids.ts";
import { sharedEventPayload } from "./shared-event-payload.ts";
import { llmSpend } from "./llm-spend.ts";
import { runRemoteRouter } from "./run-remote.ts";

export const runListInput = z
  .object({
    status: z.enum(RunStatus).optional(),
    domain: z.enum(Domain).optional(),
    q: z.string().max(200).optional(),
    sort: z.enum(["created", "name", "score", "waiting"]).default("created"),
    dir: z.enum(["asc", "desc"]).default("desc"),
  })
  .default({ sort: "created", dir: "desc" });

export type RunListInput = z.output<typeof runListInput>;

const runId = z.object({ runId: z.string().min(1) });

export const runRouter = {
  ...runRemoteRouter,
  list: userProcedure.input(runListInput).query(async ({ ctx, input }) => {
    const where: Prisma.RunWhereInput = {
      organization: { memberships: { some: { userId: ctx.userId } } },
      ...(input.status ? { status: input.status } : {}),
      ...(input.domain ? { domain: input.domain } : {}),
      ...(input.q ? { name: { contains: input.q, mode: "insensitive" } } : {}),
    };
    const runs = await ctx.db.run.findMany({
      where,
      orderBy: input.sort === "name" ? { name: input.dir } : { createdAt: input.dir },
      take: 200,
      select: {
        id: true,
        name: true,
        domain: true,
        status: true,
        round: true,
        gpuSecondsUsed: true,
        budget: true,
        createdAt: true,
        bestBranch: { select: { version: true, promotionScore: true } },
        _count: { select: { branches: true } },
      },
    });
    const ids = runs.map((r) => r.id);
    const [waiting, bases] = await Promise.all([
      ctx.db.branch.groupBy({ by: ["runId"], where: { runId: { in: ids }, status: "awaiting_decision" }, _count: { _all: true } }),
      ctx.db.branch.findMany({ where: { runId: { in: ids }, parentId: null }, select: { runId: true, promotionScore: true } }),
    ]);
    const waitingByRun = new Map(waiting.map((w) => [w.runId, w._count._all]));
    const baseByRun = new Map(bases.map((b) => [b.runId, b.promotionScore]));
    const rows = runs.map((run) => {
      const best = run.bestBranch?.promotionScore ?? null;
      const base = baseByRun.get(run.id) ?? null;
      return {
        ...run,
        branches: run._count.branches,
        bestScore: best,
        deltaOverBase: best !== null && base !== null ? best - base : null,
        waitingDecisions: waitingByRun.get(run.id) ?? 0,
      };
    });
    const key = input.sort === "score" ? (r: (typeof rows)[number]) => r.bestScore ?? -Infinity : input.sort === "waiting" ? (r: (typeof rows)[number]) => r.waitingDecisions : null;
    if (key) rows.sort((a, b) => (input.dir === "asc" ? key(a) - key(b) : key(b) - key(a)));
    return rows;
  }),

  byId: protectedProcedure.input(runId).query(async ({ ctx, input }) => {
    const { role } = await accessRun(ctx, input.runId);
    const run = await ctx.db.run.findUniqueOrThrow({
      where: { id: input.runId },
      select: {
        id: true,
        name: true,
        domain: true,
        status: true,
        basePolicy: true,
        round: true,
        budget: true,
        gpuSecondsUsed: true,
        llmDollarsUsed: true,
        autonomyPolicy: true,
        evaluationProtocol: true,
        bestBranchId: true,
        createdAt: true,
        organization: { select: { name: true } },
        settings: true,
      },
    });
    const { settings, ...rest } = run;
    const proposer = proposerSettingsSchema.safeParse(settings);
    return {
      ...rest,
      role,
      proposer: (proposer.success ? proposer.data.search?.proposer : undefined) ?? "rule",
      // Next to GPU-seconds: what the LLM proposer's calls cost, against its budget when the run's config states one.
      llm: { ...(await llmSpend(ctx.db, input.runId)), budgetDollars: (proposer.success ? proposer.data.llm?.budgetDollars : undefined) ?? null },
    };
  }),

  /** How often this run's gate promotes a null intervention (`evotrainer calibrate`), or null when never measured. */
  gateCalibration: protectedProcedure.input(runId).query(async ({ ctx, input }) => {
    await accessRun(ctx, input.runId);
    return gateCalibrationForRun(ctx.db, input.runId);
  }),

  /** The whole tree in one query of small rows; the page lays it out and collapses it. */
  tree: protectedProcedure.input(runId).query(async ({ ctx, input }) => {
    await accessRun(ctx, input.runId);
    const [run, branches] = await Promise.all([
      ctx.db.run.findUniqueOrThrow({ where: { id: input.runId }, select: { bestBranchId: true, status: true, round: true } }),
      ctx.db.branch.findMany({
        where: { runId: input.runId },
        orderBy: { version: "asc" },
        select: {
          id: true,
          parentId: true,
          version: true,
          round: true,
          status: true,
          kind: true,
          promotionScore: true,
          intervention: { select: { factor: true, provenance: true } },
          verdict: { select: { deltaVsParent: true, passed: true } },
        },
      }),
    ]);
    return {
      ...run,
      branches: branches.map(({ intervention, verdict, ...b }) => ({
        ...b,
        factor: intervention?.factor ?? null,
        provenance: intervention?.provenance ?? null,
        deltaVsParent: verdict?.deltaVsParent ?? null,
        passed: verdict?.passed ?? null,
      })),
    };
  }),

  events: protectedProcedure
    .input(runId.extend({ branchId: z.string().optional(), limit: z.number().int().min(1).max(500).default(100) }))
    .query(async ({ ctx, input }) => {
      await accessRun(ctx, input.runId);
      const events = await ctx.db.event.findMany({
        where: { runId: input.runId, ...(input.branchId ? { branchId: input.branchId } : {}) },
        orderBy: { id: "desc" },
        take: input.limit,
        select: { id: true, branchId: true, type: true, actor: true, payload: true, createdAt: true, branch: { select: { version: true } } },
      });
      // A person's actions are recorded as "user:<id>": shown by name (a share link sees "a team member").
      const userIds = [...new Set(events.flatMap((e) => (e.actor.startsWith("user:") ? [e.actor.slice(5)] : [])))];
      const names = new Map((await ctx.db.user.findMany({ where: { id: { in: userIds } }, select: { id: true, name: true } })).map((u) => [`user:${u.id}`, u.name]));
      const shared = ctx.principal.kind === "share";
      return events.map((e) => ({
        ...e,
        actor: e.actor.startsWith("user:") ? (shared ? "a team member" : (names.get(e.actor) ?? "a former member")) : e.actor,
        payload: shared ? (sharedEventPayload(e.payload) as typeof e.payload) : e.payload,
      }));
    }),

  /**
   * The LLM proposer's calls, newest first, for audit: model, prompt version, outcome, tokens and
   * dollars of each (the prompts stay in Postgres until one call is opened), and the rounds that
   * fell back to the rule-based proposer.
   */
  llmCalls: protectedProcedure
    .input(runId.extend({ branchId: z.string().optional(), limit: z.number().int().min(1).max(200).default(50) }))
    .query(async ({ ctx, input }) => {
      await accessRun(ctx, input.runId);
      const branchId = input.branchId ?? null;
      const rows = await ctx.db.$queryRaw<{ id: bigint; type: string; branchId: string | null; version: number | null; createdAt: Date; payload: unknown }[]>`
        SELECT e."id", e."type", e."branchId", b."version", e."createdAt", e."payload" - 'request' - 'response' AS "payload"
        FROM "Event" e LEFT JOIN "Branch" b ON b."id" = e."branchId"
        WHERE e."runId" = ${input.runId} AND e."type" IN ('llm_call', 'proposer_fallback')
          AND (${branchId}::text IS NULL OR e."branchId" = ${branchId})
        ORDER BY e."id" DESC
        LIMIT ${input.limit}`;
      const at = ({ id, branchId, version, createdAt }: (typeof rows)[number]) => ({ id, branchId, branchVersion: version, createdAt });
      return {
        calls: rows.filter((r) => r.type === "llm_call").map((r) => ({ ...at(r), ...llmCallPayloadSchema.parse(r.payload) })),
        fallbacks: rows.filter((r) => r.type === "proposer_fallback").map((r) => ({ ...at(r), ...fallbackPayloadSchema.parse(r.payload) })),
      };
    }),

  /** One LLM call in full: the exact prompt sent and the answer that came back. */
  llmCall: protectedProcedure.input(runId.extend({ eventId: int64Id })).query(async ({ ctx, input }) => {
    await accessRun(ctx, input.runId);
    const event = await ctx.db.event.findFirst({
      where: { id: BigInt(input.eventId), runId: input.runId, type: "llm_call" },
      select: { id: true, branchId: true, payload: true, createdAt: true, branch: { select: { version: true } } },
    });
    if (!event) throw new TRPCError({ code: "NOT_FOUND", message: "LLM call not found" });
    const { payload, ...rest } = event;
    return { ...rest, ...llmCallPayloadSchema.parse(payload) };
  }),

  /** Series per branch from the maintained aggregates (MetricPoint, LabelStat), never from rollouts. */
  metrics: protectedProcedure
    .input(runId.extend({ branchIds: z.array(z.string().min(1)).min(1).max(8) }))
    .query(async ({ ctx, input }) => {
      await accessRun(ctx, input.runId);
      const branches = await ctx.db.branch.findMany({ where: { runId: input.runId, id: { in: input.branchIds } }, orderBy: { version: "asc" }, select: { id: true, version: true, kind: true, status: true, promotionScore: true } });
      const ids = branches.map((b) => b.id);
      // "sealed/…" series are the sealed split's scores: a share link sees them once they are released.
      const hideSealed = ctx.principal.kind === "share" && !(await sealedReleased(ctx.db, input.runId));
      const [points, labels] = await Promise.all([
        ctx.db.metricPoint.findMany({ where: { branchId: { in: ids }, ...(hideSealed ? { NOT: { name: { startsWith: "sealed/" } } } : {}) }, orderBy: { step: "asc" }, select: { branchId: true, step: true, name: true, value: true } }),
        ctx.db.labelStat.groupBy({
          by: ["branchId", "step", "label"],
          where: { branchId: { in: ids }, split: "train" },
          _sum: { count: true, total: true },
          orderBy: { step: "asc" },
        }),
      ]);
      return {
        branches,
        points,
        labelRates: labels.map((l) => ({
          branchId: l.branchId,
          step: l.step,
          label: l.label,
          rate: l._sum.total ? (l._sum.count ?? 0) / l._sum.total : 0,
        })),
      };
    }),
} satisfies TRPCRouterRecord;
