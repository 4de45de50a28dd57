import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { metricsLineSchema, parseJsonlLine, parseContractPath, paths, readJsonlFrom, type Rollout } from "@evotrainer/contract";
import { harnessLabeler, ingestRolloutFile } from "@evotrainer/db/ingest";
import type { LoopDeps } from "./deps.ts";
import { refreshStepMetrics } from "./step-metrics.ts";

export interface JobOutputs {
  runId: string;
  branchId: string;
  jobId: string;
  outputDir: string;
  domain: "math" | "code" | "swe" | "custom";
  harnessVersionId: string;
  maxResponseTokens: number;
  /** Share of training rollouts whose text is kept when no detector flags them. */
  textSampleRate: number;
}

// A stable sample: the same rollout is always in or out, whichever worker ingests it.
function sampled(uid: string, rate: number): boolean {
  let h = 2166136261;
  for (let i = 0; i < uid.length; i++) h = Math.imul(h ^ uid.charCodeAt(i), 16777619);
  return (h >>> 0) / 2 ** 32 < rate;
}

async function rolloutFiles(outputDir: string): Promise<{ file: string; source: string }[]> {
  const found: { file: string; source: string; step: number }[] = [];
  for (const dir of ["train", "eval"] as const) {
    const folder = paths(outputDir).rolloutsDir(dir);
    const names = await readdir(folder).catch(() => [] as string[]);
    for (const name of names) {
      const parsed = parseContractPath(join(folder, name), outputDir);
      if (parsed?.kind === "rollouts") found.push({ file: join(folder, name), source: `rollouts/${dir}/${name}`, step: parsed.step });
    }
  }
  return found.sort((a, b) => a.step - b.step || a.source.localeCompare(b.source));
}

/**
 * Brings everything a job wrote so far into Postgres: rollouts (labelled on the way in, bad lines
 * quarantined), trainer metrics, and per-step aggregates. Safe to run again at any time.
 */
export async function ingestJobOutputs(deps: LoopDeps, job: JobOutputs): Promise<{ rollouts: number; quarantined: number }> {
  const { harness, detectorRowIds } = await deps.harnesses.get(job.harnessVersionId);
  const labeler = harnessLabeler(harness, detectorRowIds, job.domain, job.maxResponseTokens, { pool: deps.labelers, harnessKey: job.harnessVersionId });
  const owner = { runId: job.runId, branchId: job.branchId, jobId: job.jobId };
  const touched = new Set<string>();
  let rollouts = 0;
  let quarantined = 0;
  for (const { file, source } of await rolloutFiles(job.outputDir)) {
    const result = await ingestRolloutFile(
      deps.pool,
      { owner, file, source, labeler, keepText: (r) => r.split !== "train" || sampled(r.uid, job.textSampleRate) },
      async (_client, batch) => {
        for (const { rollout } of batch.inserted) touched.add(`${rollout.split}|${rollout.step}`);
      },
    );
    rollouts += result.inserted;
    quarantined += result.quarantined;
  }
  await ingestTrainerMetrics(deps, job);
  for (const key of touched) {
    const [split, step] = key.split("|") as [Rollout["split"], string];
    await refreshStepMetrics(deps.db, job.branchId, split, Number(step));
  }
  return { rollouts, quarantined };
}

/** metrics.jsonl lines (verl's file-logger shape) become MetricPoints named `trainer/<key>`. */
async function ingestTrainerMetrics(deps: LoopDeps, job: JobOutputs): Promise<void> {
  const source = "metrics.jsonl";
  const cursor = await deps.db.ingestCursor.findUnique({ where: { jobId_file: { jobId: job.jobId, file: source } } });
  const tail = await readJsonlFrom(paths(job.outputDir).metrics, {
    byteOffset: Number(cursor?.byteOffset ?? 0),
    lineNumber: cursor?.lineNumber ?? 0,
  });
  if (tail.lines.length === 0) return;
  const points = tail.lines.flatMap((line) => {
    const parsed = parseJsonlLine(line.text, metricsLineSchema);
    if (!parsed.ok) return [];
    return Object.entries(parsed.value.data).flatMap(([key, value]) =>
      value === null ? [] : [{ branchId: job.branchId, step: parsed.value.step, name: `trainer/${key}`, value }],
    );
  });
  await deps.db.$transaction(async (tx) => {
    for (const point of points) {
      await tx.metricPoint.upsert({
        where: { branchId_name_step: { branchId: point.branchId, name: point.name, step: point.step } },
        update: { value: point.value },
        create: point,
      });
    }
    await tx.ingestCursor.upsert({
      where: { jobId_file: { jobId: job.jobId, file: source } },
      update: { byteOffset: BigInt(tail.nextOffset), lineNumber: tail.nextLineNumber },
      create: { jobId: job.jobId, file: source, byteOffset: BigInt(tail.nextOffset), lineNumber: tail.nextLineNumber },
    });
  });
}
