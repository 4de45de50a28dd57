import { recordSlurmPartitions, type Database } from "@evotrainer/db";
import type { SlurmExecutor } from "@evotrainer/executors";
import type { ExecutorPool } from "../executors/executor-pool.ts";

/**
 * Each enabled Slurm cluster's partitions, as sinfo shows them now, kept on its row for the nodes
 * page. A cluster that does not answer keeps what was last seen (with its time) and is logged.
 */
export async function sweepSlurmPartitions(db: Database, executors: ExecutorPool, log: (line: string) => void): Promise<number> {
  const clusters = await db.gpuNode.findMany({ where: { executor: "slurm", enabled: true } });
  let seen = 0;
  for (const cluster of clusters) {
    try {
      const executor = (await executors.onNode(cluster)) as SlurmExecutor;
      await recordSlurmPartitions(db, cluster, (await executor.partitions()).map((row) => ({ ...row })), new Date());
      seen++;
    } catch (error) {
      log(`slurm: cluster ${cluster.name}: could not read its partitions: ${(error as Error).message}`);
    }
  }
  return seen;
}
