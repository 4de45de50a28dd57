import { runConfigOf, type RunConfig } from "@evotrainer/core";
import { createRun, recordEvent, storeRecipe, type Database } from "@evotrainer/db";
import { importJob } from "./branch-ingest.ts";
import { localOrganization } from "./local-organization.ts";

export interface ImportTarget {
  runId: string;
  branchId: string;
  branchVersion: number;
  jobId: string;
  /** False when this directory was imported before: the same branch takes whatever is new. */
  created: boolean;
}

/**
 * Where to import: as a new base branch of an existing run, or as the base branch of a run created
 * from a config. `dir` is the run directory's absolute path: an import is found again by it.
 */
export type ImportWhere = {
  /** The trainer its job is recorded under. */
  adapter: RunConfig["adapter"];
  /** What was read, when not the trainer's own run directory (an agent trajectory format): the import is found again by it. */
  format?: string;
  dir: string;
} & ({ runId: string } | { config: RunConfig });

/**
 * The branch an imported run lands in. The same directory imported again (into the same run, with
 * --run; anywhere, with --config) lands in the branch it landed in before, so nothing is added
 * twice. A new one is a base branch (no parent, the run's recipe) that waits for a person's
 * decision: it was trained outside the loop and never judged, so `evotrainer decide … approve`
 * makes it a branch the search builds on (and backtests against), and until then the worker
 * leaves it alone.
 */
export async function importTarget(db: Database, where: ImportWhere): Promise<ImportTarget> {
  const what = where.format ?? where.adapter;
  const externalId = `import:${what}:${where.dir}`;
  const previous = await db.job.findFirst({
    where: { externalId, ...("runId" in where ? { branch: { runId: where.runId } } : {}) },
    orderBy: { createdAt: "asc" },
    include: { branch: true },
  });
  if (previous) return { runId: previous.branch.runId, branchId: previous.branchId, branchVersion: previous.branch.version, jobId: previous.id, created: false };

  let runId: string;
  let branch: { id: string; version: number };
  if ("runId" in where) {
    const run = await db.run.findUnique({ where: { id: where.runId } });
    if (!run) throw new Error(`no run with id ${where.runId}; \`evotrainer status\` shows the latest`);
    runId = run.id;
    branch = await db.$transaction(async (tx) => {
      // Versions are unique per run; the run row's lock orders this against the loop adding branches.
      await tx.$queryRaw`SELECT id FROM "Run" WHERE id = ${run.id} FOR UPDATE`;
      const last = await tx.branch.findFirst({ where: { runId: run.id }, orderBy: { version: "desc" }, select: { version: true } });
      const recipeId = await storeRecipe(tx, runConfigOf(run).recipe);
      const created = await tx.branch.create({ data: { runId: run.id, version: (last?.version ?? -1) + 1, round: run.round, status: "awaiting_decision", recipeId } });
      await recordEvent(tx, { runId: run.id, branchId: created.id, type: "branch_created", actor: "cli", payload: { version: created.version, base: true, imported: { adapter: what, dir: where.dir } } });
      return created;
    });
  } else {
    const created = await createRun(db, where.config, { organizationId: await localOrganization(db) });
    runId = created.runId;
    // createRun queues the base branch for training; an imported one has trained already.
    branch = await db.branch.update({ where: { id: created.baseBranchId }, data: { status: "awaiting_decision" } });
  }
  await recordEvent(db, {
    runId,
    branchId: branch.id,
    type: "awaiting_decision",
    actor: "cli",
    payload: { reason: `imported from a ${what} ${where.format ? "file or directory" : "run directory"}; approve it to build on it`, imported: { adapter: what, dir: where.dir } },
  });
  const job = await importJob(db, { branchId: branch.id, externalId, adapter: where.adapter, message: `imported from ${where.dir}` });
  return { runId, branchId: branch.id, branchVersion: branch.version, jobId: job.id, created: true };
}
