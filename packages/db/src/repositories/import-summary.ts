import type { Database } from "../client.ts";

export interface ImportSummary {
  /** Quarantined lines of the import's sources, in file and line order (the first 50). */
  quarantined: { source: string; lineNumber: number; reason: string }[];
  /** Rollouts per label in the branch. */
  labels: Record<string, number>;
}

/** What an import left: the lines it kept out, and the labels of its branch. */
export async function importSummary(db: Database, input: { jobId: string; branchId: string; sources: readonly string[] }): Promise<ImportSummary> {
  const quarantined = await db.quarantinedLine.findMany({
    where: { jobId: input.jobId, source: { in: [...input.sources] } },
    orderBy: [{ source: "asc" }, { lineNumber: "asc" }],
    take: 50,
    select: { source: true, lineNumber: true, reason: true },
  });
  const counts = await db.rolloutLabel.groupBy({ by: ["label"], where: { branchId: input.branchId }, _count: { _all: true }, orderBy: { label: "asc" } });
  return { quarantined, labels: Object.fromEntries(counts.map((l) => [l.label, l._count._all])) };
}
