import { createDatabase, discardEmptyImport, importJob, importSummary, importTarget, type ImportTarget } from "@evotrainer/db";
import { branchLabeler, createIngestPool, ingestTexts, writeTrainerMetrics, type BatchLabeler } from "@evotrainer/db/ingest";
import { byteProgress } from "./byte-progress.ts";
import { loadCliEnv } from "./env.ts";
import type { ImportRequest, ImportSink } from "./import-sink.ts";
import { localOrganization } from "./local-organization.ts";

/** Imports into this machine's database (the CLI beside the control plane). */
export function localImportSink(): ImportSink {
  const env = loadCliEnv();
  const db = createDatabase(env.DATABASE_URL);
  const pool = createIngestPool(env.DATABASE_URL);
  const labelers = new Map<string, Promise<BatchLabeler>>();
  const labelerOf = (branchId: string) => {
    if (!labelers.has(branchId)) labelers.set(branchId, branchLabeler(db, branchId).then((b) => b.labeler));
    return labelers.get(branchId)!;
  };
  async function importTargetOf(request: ImportRequest): Promise<ImportTarget> {
    const where = { dir: request.dir, actor: "cli", ...(request.format ? { format: request.format } : {}) };
    const { into } = request;
    if ("branchId" in into) {
      const { runId, config } = await branchLabeler(db, into.branchId);
      const branch = await db.branch.findUniqueOrThrow({ where: { id: into.branchId }, select: { version: true } });
      const job = await importJob(db, { branchId: into.branchId, externalId: `import:${request.dir}`, adapter: config.adapter, message: `imported from ${request.dir}` });
      return { runId, branchId: into.branchId, branchVersion: branch.version, jobId: job.id, created: job.created };
    }
    if ("runId" in into) return importTarget(db, { ...where, runId: into.runId, ...(request.adapter ? { adapter: request.adapter } : {}) });
    return importTarget(db, { ...where, config: into.config, organizationId: into.organizationId ?? (await localOrganization(db)) });
  }
  return {
    destination: "this machine's database",
    // Ready to take rollouts: the branch's labeller is compiled before the target is returned, so
    // that a caller reading files while it waits (readAhead) reads them through that too.
    async target(request: ImportRequest): Promise<ImportTarget> {
      const target = await importTargetOf(request);
      await labelerOf(target.branchId);
      return target;
    },
    async rollouts(target, sources) {
      const owner = { runId: target.runId, branchId: target.branchId, jobId: target.jobId };
      const labeler = await labelerOf(target.branchId);
      // Progress per source as its rows commit.
      const labels = new Map<string, string>();
      async function* labelled() {
        for await (const source of sources) {
          labels.set(source.source, source.label);
          yield source;
        }
      }
      const progress = byteProgress();
      const result = await ingestTexts(pool, { owner, labeler, keepText: () => true }, labelled(), {
        onStored: ({ source, byteOffset, size }) => progress.show(labels.get(source) ?? source, byteOffset, size),
      });
      progress.end();
      return result;
    },
    metrics: (target, steps) => writeTrainerMetrics(pool, target.branchId, steps),
    summary: (target, sources) => importSummary(db, { jobId: target.jobId, branchId: target.branchId, sources }),
    discard: (target) => discardEmptyImport(db, target),
    async close() {
      await pool.end();
      await db.$disconnect();
    },
  };
}
