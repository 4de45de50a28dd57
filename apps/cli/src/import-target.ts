import { canonicalJson, runConfigOf, type RunConfig } from "@evotrainer/core";
import { createRun, recordEvent, storeRecipe, type Database, type Tx } from "@evotrainer/db";
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
 * twice, and an import cut short resumes there. With --config, the config must be the one it was
 * first imported under: another one is refused, never silently ignored. A new branch is a base
 * branch (no parent, the run's recipe) that waits for a person's decision: it was trained outside the
 * loop and never judged, so `evotrainer decide … approve` makes it a branch the search builds on.
 * Run, branch, job and events commit together: a failure leaves nothing half-created.
 */
export async function importTarget(db: Database, where: ImportWhere): Promise<ImportTarget> {
  const what = where.format ?? where.adapter;
  const externalId = `import:${what}:${where.dir}`;
  const previous = await db.job.findFirst({
    where: { externalId, ...("runId" in where ? { branch: { runId: where.runId } } : {}) },
    orderBy: { createdAt: "asc" },
    include: { branch: { include: { run: true } } },
  });
  if (previous) {
    if ("config" in where) refuseAnotherConfig(where, runConfigOf(previous.branch.run), previous.branch.runId);
    return { runId: previous.branch.runId, branchId: previous.branchId, branchVersion: previous.branch.version, jobId: previous.id, created: false };
  }
  const imported = { adapter: what, dir: where.dir };
  const waitForDecision = async (tx: Tx, runId: string, branchId: string) => {
    await recordEvent(tx, {
      runId,
      branchId,
      type: "awaiting_decision",
      actor: "cli",
      payload: { reason: `imported from a ${what} ${where.format ? "file or directory" : "run directory"}; approve it to build on it`, imported },
    });
    return importJob(tx, { branchId, externalId, adapter: where.adapter, message: `imported from ${where.dir}` });
  };

  if ("runId" in where) {
    const run = await db.run.findUnique({ where: { id: where.runId } });
    if (!run) throw new Error(`no run with id ${where.runId}; \`evotrainer status\` shows the latest`);
    return db.$transaction(async (tx) => {
      // Versions are unique per run; the run row's lock orders this against the loop adding branches.
      await tx.$queryRaw`SELECT id FROM "Run" WHERE id = ${run.id} FOR UPDATE`;
      const last = await tx.branch.findFirst({ where: { runId: run.id }, orderBy: { version: "desc" }, select: { version: true } });
      const recipeId = await storeRecipe(tx, runConfigOf(run).recipe);
      const branch = await tx.branch.create({ data: { runId: run.id, version: (last?.version ?? -1) + 1, round: run.round, status: "awaiting_decision", recipeId } });
      await recordEvent(tx, { runId: run.id, branchId: branch.id, type: "branch_created", actor: "cli", payload: { version: branch.version, base: true, imported } });
      const job = await waitForDecision(tx, run.id, branch.id);
      return { runId: run.id, branchId: branch.id, branchVersion: branch.version, jobId: job.id, created: true };
    });
  }
  let jobId = "";
  const created = await createRun(db, where.config, { organizationId: await localOrganization(db) }, {
    baseStatus: "awaiting_decision",
    alongside: async (tx, run) => {
      jobId = (await waitForDecision(tx, run.runId, run.baseBranchId)).id;
    },
  });
  return { runId: created.runId, branchId: created.baseBranchId, branchVersion: 0, jobId, created: true };
}

function refuseAnotherConfig(where: { config: RunConfig; dir: string }, before: RunConfig, runId: string): void {
  if (canonicalJson(where.config) === canonicalJson(before)) return;
  throw new Error(
    `${where.dir} was imported before into run ${runId} under another run config; importing it again under this one ` +
      `would silently keep the old one. Import it into that run with --run ${runId}, or copy the directory to import it as a new run`,
  );
}
