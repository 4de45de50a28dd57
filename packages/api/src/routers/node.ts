import type { TRPCRouterRecord } from "@trpc/server";
import type { SinfoRow } from "@evotrainer/core";
import { listGpuNodes } from "@evotrainer/db";
import { userProcedure } from "../trpc.ts";

export const nodeRouter = {
  /** The GPU nodes with the GPUs their running jobs hold; where a key comes from, never the key or its path. */
  list: userProcedure.query(async ({ ctx }) => {
    const [nodes, busy] = await Promise.all([
      listGpuNodes(ctx.db),
      ctx.db.job.findMany({ where: { state: { in: ["submitted", "running"] }, nodeId: { not: null } }, select: { nodeId: true, gpuIndexes: true } }),
    ]);
    return nodes.map(({ id, name, executor, host, port, user, gpuCount, labels, enabled, workRoot, keySource, lastSeenAt, pool, partitions }) => ({
      id,
      name,
      executor,
      // A Kubernetes pool is reached through the worker's KUBECONFIG, in its namespace; a Slurm cluster through its login node.
      address:
        executor === "kubernetes"
          ? `kubernetes namespace ${(pool as { namespace: string }).namespace}`
          : executor === "slurm"
            ? `slurm ${host ? `login ${user}@${host}:${port}` : "login on the worker's machine"}${(pool as { partition?: string }).partition ? `, partition ${(pool as { partition?: string }).partition}` : ""}`
            : `${user}@${host}:${port}`,
      gpuCount,
      gpusInUse: busy.filter((job) => job.nodeId === id).flatMap((job) => job.gpuIndexes),
      labels: labels as Record<string, string>,
      enabled,
      workRoot: executor === "kubernetes" ? (pool as { artifacts: { mountPath: string } }).artifacts.mountPath : workRoot,
      keySource,
      lastSeenAt,
      // A Slurm cluster's partitions as sinfo last showed them to the worker (at lastSeenAt); null before its first look.
      partitions: executor === "slurm" && Array.isArray(partitions) ? (partitions as unknown as SinfoRow[]) : null,
    }));
  }),
} satisfies TRPCRouterRecord;
