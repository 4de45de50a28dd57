import { canonicalJson, runConfigOf, type RunConfig } from "@evotrainer/core";
import type { Database } from "../client.ts";
import { createRun, storeRecipe } from "./create-run.ts";
import { recordEvent, type Tx } from "./events.ts";

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
 * from a config in an organization. `dir` names what is imported (a run directory's absolute path,
 * prefixed with the machine's name when it came over HTTP): an import is found again by it.
 */
export type ImportWhere = {
  /** What was read, when not the trainer's own run directory (an agent trajectory format): the import is found again by it. */
  format?: string;
  dir: string;
  /** Who imports, for the events. */
  actor: string;
} & (
  | { runId: string; /** The trainer its job is recorded under; the run's own when not given. */ adapter?: RunConfig["adapter"] }
  | { config: RunConfig; organizationId: string; createdById?: string }
);

/**
 * The branch an imported run lands in. The same directory imported again (into the same run, with
 * a run; anywhere, with a config) lands in the branch it landed in before, so nothing is added
 * twice, and an import cut short resumes there. With a config, it must be the one it was first
 * imported under: another one is refused, never silently ignored. A new branch is a base branch (no
 * parent, the run's recipe) that waits for a person's decision: it was trained outside the loop and
 * never judged, so approving it makes it a branch the search builds on. Run, branch, job and events
 * commit together: a failure leaves nothing half-created.
 */
export async function importTarget(db: Database, where: ImportWhere): Promise<ImportTarget> {
  const run = "runId" in where ? await db.run.findUnique({ where: { id: where.runId } }) : null;
  if ("runId" in where && !run) throw new Error(`no run with id ${where.runId}; \`evotrainer status\` shows the latest`);
  const adapter = "config" in where ? where.config.adapter : (where.adapter ?? runConfigOf(run!).adapter);
  const what = where.format ?? adapter;
  const externalId = `import:${what}:${where.dir}`;
  const previous = await db.job.findFirst({
    where: { externalId, ...(run ? { branch: { runId: run.id } } : {}) },
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
      actor: where.actor,
      payload: { reason: `imported from a ${what} ${where.format ? "file or directory" : "run directory"}; approve it to build on it`, imported },
    });
    return importJob(tx, { branchId, externalId, adapter, message: `imported from ${where.dir}` });
  };

  if (run) {
    return db.$transaction(async (tx) => {
      // Versions are unique per run; the run row's lock orders this against the loop adding branches.
      await tx.$queryRaw`SELECT id FROM "Run" WHERE id = ${run.id} FOR UPDATE`;
      const last = await tx.branch.findFirst({ where: { runId: run.id }, orderBy: { version: "desc" }, select: { version: true } });
      const recipeId = await storeRecipe(tx, runConfigOf(run).recipe);
      const branch = await tx.branch.create({ data: { runId: run.id, version: (last?.version ?? -1) + 1, round: run.round, status: "awaiting_decision", recipeId } });
      await recordEvent(tx, { runId: run.id, branchId: branch.id, type: "branch_created", actor: where.actor, payload: { version: branch.version, base: true, imported } });
      const job = await waitForDecision(tx, run.id, branch.id);
      return { runId: run.id, branchId: branch.id, branchVersion: branch.version, jobId: job.id, created: true };
    });
  }
  const { config, organizationId, createdById } = where as Extract<ImportWhere, { config: RunConfig }>;
  let jobId = "";
  const created = await createRun(db, config, { organizationId, ...(createdById ? { createdById } : {}) }, {
    baseStatus: "awaiting_decision",
    alongside: async (tx, created) => {
      jobId = (await waitForDecision(tx, created.runId, created.baseBranchId)).id;
    },
  });
  return { runId: created.runId, branchId: created.baseBranchId, branchVersion: 0, jobId, created: true };
}

/**
 * The job an import's rows belong to, found by what was imported (`externalId`) or created once.
 * An import is a job of its own, so its cursors and quarantined lines are kept apart from training's.
 */
export async function importJob(
  db: Database | Tx,
  input: { branchId: string; externalId: string; adapter: RunConfig["adapter"]; message: string },
): Promise<{ id: string; created: boolean }> {
  const found = await db.job.findFirst({ where: { branchId: input.branchId, externalId: input.externalId } });
  if (found) return { id: found.id, created: false };
  const job = await db.job.create({
    data: { branchId: input.branchId, kind: "train", executor: "local", adapter: input.adapter, state: "succeeded", externalId: input.externalId, message: input.message },
  });
  return { id: job.id, created: true };
}

function refuseAnotherConfig(where: { config: RunConfig; dir: string }, before: RunConfig, runId: string): void {
  if (canonicalJson(where.config) === canonicalJson(before)) return;
  throw new Error(
    `${where.dir} was imported before into run ${runId} under another run config; importing it again under this one ` +
      `would silently keep the old one. Import it into that run with --run ${runId}, or copy the directory to import it as a new run`,
  );
}
