import { ACTIVE_JOB_STATES, isSettledRun } from "@evotrainer/core";
import type { Database } from "@evotrainer/db";
import { until } from "./until.ts";

type RunStopper = { runControl: { stop(input: { runId: string; sealed: boolean }): Promise<unknown> } };

/**
 * Stops a run that a test leaves going and waits until none of its jobs runs. Trainers are detached
 * from the worker on purpose (a worker restart must not kill training), so without this a trainer
 * still writes into the test's directory while the test removes it.
 */
export async function stopRunAndSettle(db: Database, api: RunStopper, runId: string): Promise<void> {
  await api.runControl.stop({ runId, sealed: false });
  await untilRunSettled(db, runId);
}

/** Waits, while a worker drives the run, until it has ended and none of its jobs (the sealed evaluation's included) runs. */
export async function untilRunSettled(db: Database, runId: string): Promise<void> {
  await until("the run ended with no job left running", async () => {
    const run = await db.run.findUniqueOrThrow({ where: { id: runId } });
    if (!isSettledRun(run.status)) return false;
    return (await db.job.count({ where: { branch: { runId }, state: { in: [...ACTIVE_JOB_STATES] } } })) === 0;
  });
}
