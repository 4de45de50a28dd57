import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { parseContractPath, paths } from "@evotrainer/contract";
import { harnessLabeler, ingestRolloutFile, ingestTrainerMetricsFile } from "@evotrainer/db/ingest";
import { QueueName } from "@evotrainer/queue";
import type { LoopDeps } from "./deps.ts";

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
 * quarantined, per-step aggregates with them) and trainer metrics. Safe to run again at any time.
 */
export async function ingestJobOutputs(deps: LoopDeps, job: JobOutputs): Promise<{ rollouts: number; quarantined: number }> {
  const { harness, detectorRowIds } = await deps.harnesses.get(job.harnessVersionId);
  const labeler = harnessLabeler(harness, detectorRowIds, job.domain, job.maxResponseTokens, { pool: deps.labelers, harnessKey: job.harnessVersionId });
  const owner = { runId: job.runId, branchId: job.branchId, jobId: job.jobId };
  let rollouts = 0;
  let quarantined = 0;
  for (const { file, source } of await rolloutFiles(job.outputDir)) {
    const result = await ingestRolloutFile(
      deps.pool,
      { owner, file, source, labeler, keepText: (r) => r.split !== "train" || sampled(r.uid, job.textSampleRate) },
      // Inside the batch's transaction: a crash here must roll the whole batch back.
      () => deps.failpoint("ingest:batch"),
    );
    rollouts += result.inserted;
    quarantined += result.quarantined;
  }
  await ingestTrainerMetricsFile(deps.pool, { jobId: job.jobId, branchId: job.branchId, file: paths(job.outputDir).metrics, source: "metrics.jsonl" });
  // Committed rollouts go into the explorer's search index off this path (see the search queue).
  if (rollouts > 0) await deps.producer.enqueue(QueueName.Search, { branchId: job.branchId });
  return { rollouts, quarantined };
}
