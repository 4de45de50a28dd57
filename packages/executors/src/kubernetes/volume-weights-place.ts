import { join } from "node:path";
import type { WeightsPlace } from "../job-weights.ts";
import { localWeightsFiles } from "../local/local-weights-files.ts";
import { localJobDir, type KubernetesPool } from "./kubernetes-pool.ts";

/**
 * A job directory on a pool's artifacts volume, reached where the control plane mounts it; no pod
 * is needed. A machine without the mount (a laptop running `evotrainer gc`) cannot reach it.
 */
export async function volumeWeightsPlace(pool: KubernetesPool, workDir: string): Promise<WeightsPlace> {
  const dir = localJobDir(pool, workDir);
  if (!(await localWeightsFiles.lstat(pool.artifacts.localPath))?.directory) {
    throw new Error(`the artifacts volume of pool ${pool.name} is not mounted on this machine at ${pool.artifacts.localPath}`);
  }
  return { files: localWeightsFiles, outputDir: join(dir, "output") };
}
