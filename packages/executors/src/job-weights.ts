import { posix } from "node:path";
import { paths } from "@evotrainer/contract";

/** A file or directory of model weights in a job's output dir, and how much disk it holds. */
export interface WeightsOnDisk {
  path: string;
  bytes: number;
}

/** What `lstat` tells of a path: a link is itself, never what it points at. */
export interface WeightsEntry {
  directory: boolean;
  size: number;
}

/**
 * The file operations retention needs on the machine that holds a job's directory: this one's file
 * system (local jobs, a Kubernetes volume the control plane mounts) or an SSH node's.
 */
export interface WeightsFiles {
  /** `null` when the path does not exist. */
  lstat(path: string): Promise<WeightsEntry | null>;
  /** The entries of a directory; empty when it does not exist. */
  readdir(path: string): Promise<(WeightsEntry & { name: string })[]>;
  /** Deletes a file or a directory with everything in it; a path already gone is no error. */
  remove(path: string): Promise<void>;
}

/** Bytes under `path`, links counted as themselves (a link to a shared base model is not its weights). */
async function sizeOf(files: WeightsFiles, path: string, entry: WeightsEntry): Promise<number> {
  if (!entry.directory) return entry.size;
  let total = 0;
  for (const child of await files.readdir(path)) total += await sizeOf(files, posix.join(path, child.name), child);
  return total;
}

/**
 * Where trainers leave model weights in a job's output dir: the contract's `checkpoints/` (the gym's
 * policy files, the pointer), TRL's saved model and its periodic `checkpoint-N/` saves (GRPOConfig's
 * output_dir is `trl/`), and verl's `verl/checkpoints/`. Rollouts, metrics, logs and status stay.
 */
export async function weightsIn(files: WeightsFiles, outputDir: string): Promise<WeightsOnDisk[]> {
  const trlDir = posix.join(outputDir, "trl");
  const trlSaves = (await files.readdir(trlDir)).filter(({ name }) => /^checkpoint-\d+$/.test(name)).map(({ name }) => posix.join(trlDir, name));
  const candidates = [paths(outputDir).checkpointsDir, posix.join(trlDir, "final"), ...trlSaves, posix.join(outputDir, "verl", "checkpoints")];
  const found: WeightsOnDisk[] = [];
  for (const path of candidates) {
    const entry = await files.lstat(path);
    if (entry) found.push({ path, bytes: await sizeOf(files, path, entry) });
  }
  return found;
}

/** A job whose branch's weights may go: where it ran, as its Job row says. */
export interface WeightsJob {
  branchId: string;
  branchVersion: number;
  jobId: string;
  executor: "local" | "ssh" | "kubernetes" | "slurm";
  /** The job's directory on the machine that ran it (its Job row's outputUri). */
  outputUri: string;
  nodeId: string | null;
  nodeName: string | null;
}

/** Where a job's directory is reached from here: the file operations there and its output dir. */
export interface WeightsPlace {
  files: WeightsFiles;
  outputDir: string;
}

export interface JobWeights extends WeightsOnDisk {
  branchId: string;
  branchVersion: number;
  jobId: string;
  /** The machine that holds them: `local`, the SSH node's or the Kubernetes pool's name. */
  where: string;
}

/** Weights found, and how to delete them where they are. */
export interface FoundWeights {
  weights: JobWeights;
  remove: () => Promise<void>;
}

/** A job whose directory could not be reached (node gone, unreachable, volume not mounted here). */
export interface WeightsElsewhere {
  branchId: string;
  branchVersion: number;
  jobId: string;
  where: string;
  why: string;
}

/**
 * The weights of the jobs of branches whose weights are to go, wherever the jobs ran: `open` says
 * how to reach a job's directory, and throws when it cannot, which lists the job as out of reach.
 */
export async function weightsToDelete(
  jobs: readonly WeightsJob[],
  branchIds: ReadonlySet<string>,
  open: (job: WeightsJob) => Promise<WeightsPlace>,
): Promise<{ found: FoundWeights[]; elsewhere: WeightsElsewhere[] }> {
  const found: FoundWeights[] = [];
  const elsewhere: WeightsElsewhere[] = [];
  for (const job of jobs.filter((j) => branchIds.has(j.branchId))) {
    const ids = { branchId: job.branchId, branchVersion: job.branchVersion, jobId: job.jobId };
    const where = job.executor === "local" ? "local" : (job.nodeName ?? job.executor);
    try {
      const { files, outputDir } = await open(job);
      for (const weights of await weightsIn(files, outputDir)) found.push({ weights: { ...ids, where, ...weights }, remove: () => files.remove(weights.path) });
    } catch (error) {
      elsewhere.push({ ...ids, where: `${where}:${job.outputUri}`, why: (error as Error).message });
    }
  }
  return { found, elsewhere };
}
