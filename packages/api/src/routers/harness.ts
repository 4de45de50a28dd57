import type { TRPCRouterRecord } from "@trpc/server";
import type { Prisma } from "@evotrainer/db";
import { userProcedure } from "../trpc.ts";

export const harnessRouter = {
  /** Harness versions of the caller's runs plus the shared catalog (no run), with their detectors. */
  list: userProcedure.query(async ({ ctx }) => {
    const visible: Prisma.HarnessVersionWhereInput = {
      OR: [{ runId: null }, { run: { organization: { memberships: { some: { userId: ctx.userId } } } } }],
    };
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
    // Rates come from LabelStat; agreement from the labels people reviewed (a small, reviewed subset).
    const [rates, reviews] = await Promise.all([
      ctx.db.labelStat.groupBy({ by: ["detectorId", "branchId"], where: { detectorId: { in: detectorIds } }, _sum: { count: true, total: true } }),
      ctx.db.rolloutLabel.groupBy({ by: ["detectorId", "review"], where: { detectorId: { in: detectorIds }, review: { not: null } }, _count: { _all: true } }),
    ]);
    const stats = new Map<string, { branches: { branchId: string; rate: number }[]; confirmed: number; rejected: number }>();
    const statOf = (id: string) => stats.get(id) ?? stats.set(id, { branches: [], confirmed: 0, rejected: 0 }).get(id)!;
    for (const r of rates) statOf(r.detectorId).branches.push({ branchId: r.branchId, rate: r._sum.total ? (r._sum.count ?? 0) / r._sum.total : 0 });
    for (const r of reviews) statOf(r.detectorId)[r.review === "confirmed" ? "confirmed" : "rejected"] += r._count._all;
    return versions.map((v) => ({
      ...v,
      detectors: v.detectors.map(({ detector }) => ({ ...detector, stats: stats.get(detector.id) ?? { branches: [], confirmed: 0, rejected: 0 } })),
    }));
  }),
} satisfies TRPCRouterRecord;
