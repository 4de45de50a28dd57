import { ACTIVE_JOB_STATES, isActiveJob } from "@evotrainer/core";
import type { Job, Tx } from "@evotrainer/db";
import type { LoopDeps } from "./deps.ts";

/**
 * Ends a pending or running job: its process first, through its executor, then its row, cancelled,
 * with `onCancelled` in the same transaction. A dispatch may launch the job meanwhile, so the row is
 * only taken as it was read: one that gained a process since is read again and that process ended
 * too (and a launch that finds its row cancelled ends its own process: see launchJob). Returns
 * whether this call cancelled the row; false when the job had already ended.
 */
export async function cancelActiveJob(deps: Pick<LoopDeps, "db" | "executors">, jobId: string, onCancelled: (tx: Tx, job: Job) => Promise<void>): Promise<boolean> {
  for (;;) {
    const job = await deps.db.job.findUniqueOrThrow({ where: { id: jobId } });
    if (!isActiveJob(job.state)) return false;
    if (job.externalId && job.outputUri) {
      const { executor } = await deps.executors.open(job);
      await executor.cancel({ executor: job.executor, externalId: job.externalId, workDir: job.outputUri });
    }
    const cancelled = await deps.db.$transaction(async (tx) => {
      const moved = await tx.job.updateMany({
        where: { id: job.id, state: { in: [...ACTIVE_JOB_STATES] }, externalId: job.externalId },
        data: { state: "cancelled", finishedAt: new Date() },
      });
      if (moved.count > 0) await onCancelled(tx, job);
      return moved.count > 0;
    });
    if (cancelled) return true;
  }
}
