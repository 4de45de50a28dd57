import { lstat, readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { paths } from "@evotrainer/contract";

/** A file or directory of model weights in a job's output dir, and how much disk it holds. */
export interface WeightsOnDisk {
  path: string;
  bytes: number;
}

async function exists(path: string): Promise<boolean> {
  return lstat(path).then(
    () => true,
    () => false,
  );
}

/** Bytes under `path`, links counted as themselves (a link to a shared base model is not its weights). */
async function sizeOf(path: string): Promise<number> {
  const info = await lstat(path);
  if (!info.isDirectory()) return info.size;
  let total = 0;
  for (const name of await readdir(path)) total += await sizeOf(join(path, name));
  return total;
}

/**
 * Where trainers leave model weights in a job's output dir: the contract's `checkpoints/` (the gym's
 * policy files, the pointer), TRL's saved model and its periodic `checkpoint-N/` saves (GRPOConfig's
 * output_dir is `trl/`), and verl's `verl/checkpoints/`. Rollouts, metrics, logs and status stay.
 */
async function weightsIn(outputDir: string): Promise<WeightsOnDisk[]> {
  const trlDir = join(outputDir, "trl");
  const trlSaves = (await readdir(trlDir).catch(() => [] as string[])).filter((name) => /^checkpoint-\d+$/.test(name)).map((name) => join(trlDir, name));
  const candidates = [paths(outputDir).checkpointsDir, join(trlDir, "final"), ...trlSaves, join(outputDir, "verl", "checkpoints")];
  const found: WeightsOnDisk[] = [];
  for (const path of candidates) if (await exists(path)) found.push({ path, bytes: await sizeOf(path) });
  return found;
}

/** The output dir of a job the local executor ran in `workDir` (its Job row's outputUri). */
function localOutputDir(workDir: string): string {
  return join(workDir, "output");
}

export async function deleteWeights(weights: WeightsOnDisk): Promise<void> {
  await rm(weights.path, { recursive: true, force: true, maxRetries: 3 });
}

export interface JobWeights extends WeightsOnDisk {
  branchId: string;
  branchVersion: number;
  jobId: string;
}

export interface WeightsElsewhere {
  branchId: string;
  branchVersion: number;
  jobId: string;
  where: string;
}

/**
 * The weights on this machine of the jobs of branches whose weights are to go, and the jobs whose
 * directories are elsewhere (an SSH node, a Kubernetes volume), which this machine cannot clean.
 */
export async function weightsToDelete(
  jobs: readonly { branchId: string; branchVersion: number; jobId: string; executor: string; outputUri: string; nodeName: string | null }[],
  branchIds: ReadonlySet<string>,
): Promise<{ local: JobWeights[]; elsewhere: WeightsElsewhere[] }> {
  const local: JobWeights[] = [];
  const elsewhere: WeightsElsewhere[] = [];
  for (const job of jobs.filter((j) => branchIds.has(j.branchId))) {
    if (job.executor !== "local") {
      elsewhere.push({ branchId: job.branchId, branchVersion: job.branchVersion, jobId: job.jobId, where: `${job.nodeName ?? job.executor}:${job.outputUri}` });
      continue;
    }
    for (const weights of await weightsIn(localOutputDir(job.outputUri))) local.push({ branchId: job.branchId, branchVersion: job.branchVersion, jobId: job.jobId, ...weights });
  }
  return { local, elsewhere };
}
