import type { TRPCRouterRecord } from "@trpc/server";
import type { Prisma } from "@evotrainer/db";
import { userProcedure } from "../trpc.ts";

export const harnessRouter = {
  /** Harness versions of the caller's runs plus the shared catalog (no run), with their detectors and what the caller's branches say of them. */
  list: userProcedure.query(async ({ ctx }) => {
    const mine: Prisma.RunWhereInput = { organization: { memberships: { some: { userId: ctx.userId } } } };
    const visible: Prisma.HarnessVersionWhereInput = { OR: [{ runId: null }, { run: mine }] };
    const versions = await ctx.db.harnessVersion.findMany({
      where: visible,
      orderBy: [{ runId: "asc" }, { version: "asc" }],
      take: 200,
      select: {
        id: true,
        runId: true,
        parentId: true,
        version: true,
        domain: true,
        healthRules: true,
        gatePolicy: true,
        evidence: true,
        createdAt: true,
        run: { select: { name: true } },
        detectors: { select: { detector: { select: { id: true, key: true, label: true, version: true, cel: true, evidenceCel: true, description: true, validity: true } } } },
      },
    });
    const detectorIds = [...new Set(versions.flatMap((v) => v.detectors.map((d) => d.detector.id)))];
    // Catalog detectors are shared by every run of the installation: their rates and reviews are counted
    // over the caller's organizations' branches only, and a run's version over that run's branches.
    const branches = await ctx.db.branch.findMany({ where: { run: mine }, select: { id: true, runId: true } });
    const runOf = new Map(branches.map((b) => [b.id, b.runId]));
    const branchIds = [...runOf.keys()];
    // Rates come from LabelStat; agreement from the labels people reviewed (a small, reviewed subset).
    const [rates, reviews] = await Promise.all([
      ctx.db.labelStat.groupBy({ by: ["detectorId", "branchId"], where: { detectorId: { in: detectorIds }, branchId: { in: branchIds } }, _sum: { count: true, total: true } }),
      ctx.db.rolloutLabel.groupBy({ by: ["detectorId", "branchId", "review"], where: { detectorId: { in: detectorIds }, branchId: { in: branchIds }, review: { not: null } }, _count: { _all: true } }),
    ]);
    const statsOf = (detectorId: string, runId: string | null) => {
      const counted = (branchId: string) => runId === null || runOf.get(branchId) === runId;
      const stats = { branches: [] as { branchId: string; rate: number }[], confirmed: 0, rejected: 0 };
      for (const r of rates) if (r.detectorId === detectorId && counted(r.branchId)) stats.branches.push({ branchId: r.branchId, rate: r._sum.total ? (r._sum.count ?? 0) / r._sum.total : 0 });
      for (const r of reviews) if (r.detectorId === detectorId && counted(r.branchId)) stats[r.review === "confirmed" ? "confirmed" : "rejected"] += r._count._all;
      return stats;
    };
    return versions.map((v) => ({
      ...v,
      detectors: v.detectors.map(({ detector }) => ({ ...detector, stats: statsOf(detector.id, v.runId) })),
    }));
  }),
} satisfies TRPCRouterRecord;
