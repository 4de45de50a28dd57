import { placeJob, placementCanWait, type PlacementRequest } from "@evotrainer/core";
import type { Database } from "@evotrainer/db";

export type NodePlacement = { placed: true; nodeId: string; gpuIndexes: number[] } | { placed: false; reason: string; canWait: boolean };

/**
 * Puts a pending SSH job on free GPU slots of a node, or records why it waits. Placements are
 * serialized by a transaction-scoped advisory lock, so two dispatches never take the same GPU; a
 * job holds its slots from here (state `submitted`) until it ends.
 */
export function placeOnNode(db: Database, jobId: string, request: PlacementRequest): Promise<NodePlacement> {
  return db.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext('evotrainer.gpu-placement'))`;
    const rows = await tx.gpuNode.findMany({ where: { executor: "ssh" } });
    const nodes = rows.map((n) => ({ id: n.id, name: n.name, gpuCount: n.gpuCount, labels: n.labels as Record<string, string>, enabled: n.enabled }));
    const held = await tx.job.findMany({
      where: { id: { not: jobId }, state: { in: ["submitted", "running"] }, nodeId: { not: null } },
      select: { nodeId: true, gpuIndexes: true },
    });
    const placement = placeJob(nodes, held.map((h) => ({ nodeId: h.nodeId!, gpuIndexes: h.gpuIndexes })), request);
    if (!placement.placed) {
      await tx.job.update({ where: { id: jobId }, data: { message: placement.reason } });
      return { ...placement, canWait: placementCanWait(nodes, request) };
    }
    await tx.job.update({
      where: { id: jobId },
      data: { state: "submitted", nodeId: placement.nodeId, gpuIndexes: placement.gpuIndexes, gpuCount: request.gpus, message: null },
    });
    return placement;
  });
}
