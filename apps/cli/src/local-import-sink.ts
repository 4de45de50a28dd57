import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createDatabase, importJob, importSummary, importTarget, type ImportTarget } from "@evotrainer/db";
import { branchLabeler, createIngestPool, quarantineLines, writeTrainerMetrics, type BatchLabeler } from "@evotrainer/db/ingest";
import { ingestFileWithProgress } from "./branch-ingest.ts";
import { loadCliEnv } from "./env.ts";
import type { ImportRequest, ImportSink } from "./import-sink.ts";
import { localOrganization } from "./local-organization.ts";

/** Imports into this machine's database (the CLI beside the control plane). */
export function localImportSink(): ImportSink {
  const env = loadCliEnv();
  const db = createDatabase(env.DATABASE_URL);
  const pool = createIngestPool(env.DATABASE_URL);
  const staging = mkdtempSync(join(tmpdir(), "evotrainer-import-"));
  const labelers = new Map<string, Promise<BatchLabeler>>();
  const labelerOf = (branchId: string) => {
    if (!labelers.has(branchId)) labelers.set(branchId, branchLabeler(db, branchId).then((b) => b.labeler));
    return labelers.get(branchId)!;
  };
  let staged = 0;
  return {
    destination: "this machine's database",
    async target(request: ImportRequest): Promise<ImportTarget> {
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
    },
    async rollouts(target, source) {
      const owner = { runId: target.runId, branchId: target.branchId, jobId: target.jobId };
      await quarantineLines(pool, owner, source.source, source.unreadable);
      const file = join(staging, `${staged++}.jsonl`);
      writeFileSync(file, source.text);
      const labeler = await labelerOf(target.branchId);
      const result = await ingestFileWithProgress(pool, db, { owner, labeler, file, source: source.source, label: source.label }, Buffer.byteLength(source.text));
      return { inserted: result.inserted, duplicates: result.duplicates, quarantined: result.quarantined + source.unreadable.length, rewritten: result.rewritten };
    },
    metrics: (target, steps) => writeTrainerMetrics(pool, target.branchId, steps),
    summary: (target, sources) => importSummary(db, { jobId: target.jobId, branchId: target.branchId, sources }),
    async close() {
      rmSync(staging, { recursive: true, force: true });
      await pool.end();
      await db.$disconnect();
    },
  };
}
