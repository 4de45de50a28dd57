import { isActiveJob, RECONCILED_BRANCH_STATUSES, RECONCILED_RUN_STATUSES } from "@evotrainer/core";
import type { Database } from "@evotrainer/db";
import { QueueName, type Producer } from "@evotrainer/queue";

export interface ReconcileResult {
  activeRuns: number;
  enqueued: number;
}

/**
 * Periodic sweep over Postgres, the source of truth: re-enqueues the next step of every run and
 * branch that is not in a terminal state. Steps are idempotent and deduplicated, so enqueueing one
 * that is already waiting or running changes nothing; after a lost Redis or a killed worker it is
 * what puts the loop back on its feet.
 */
export async function reconcile(db: Database, producer: Producer): Promise<ReconcileResult> {
  const runs = await db.run.findMany({
    where: { status: { in: [...RECONCILED_RUN_STATUSES] } },
    include: { branches: { where: { status: { in: [...RECONCILED_BRANCH_STATUSES] } }, include: { jobs: true } } },
  });
  let enqueued = 0;
  const enqueue: Producer["enqueue"] = (...args) => {
    enqueued++;
    return producer.enqueue(...args);
  };
  for (const run of runs) {
    if (run.status === "stopping") {
      await enqueue(QueueName.Control, { runId: run.id });
      continue;
    }
    if (run.status === "finishing") {
      // The sealed evaluation: watched while it runs, (re)started while it waits for a slot or a retry.
      const sealed = await db.job.findFirst({ where: { kind: "eval", branch: { runId: run.id }, state: { in: ["pending", "running"] } } });
      if (sealed?.state === "running") await enqueue(QueueName.Monitor, { runId: run.id, branchId: sealed.branchId, jobId: sealed.id });
      else if (sealed) await enqueue(QueueName.Dispatch, { runId: run.id, branchId: sealed.branchId });
      continue;
    }
    for (const branch of run.branches) {
      const payload = { runId: run.id, branchId: branch.id };
      for (const job of branch.jobs.filter((j) => j.cancelRequestedAt && isActiveJob(j.state))) {
        await enqueue(QueueName.Control, { runId: run.id, jobId: job.id });
      }
      const running = branch.jobs.find((j) => j.kind === "train" && j.state === "running");
      if (branch.status === "queued" || (branch.status === "training" && !running)) await enqueue(QueueName.Dispatch, payload);
      else if (branch.status === "training" && running) await enqueue(QueueName.Monitor, { ...payload, jobId: running.id });
      else if (branch.status === "evaluating") await enqueue(QueueName.Verdict, payload);
      else if (branch.status === "awaiting_decision" || branch.status === "proposed") await enqueue(QueueName.Decide, payload);
    }
    if (run.branches.length === 0) await enqueue(QueueName.Propose, { runId: run.id, round: run.round + 1 });
  }
  return { activeRuns: runs.length, enqueued };
}
