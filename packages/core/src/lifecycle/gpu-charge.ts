/**
 * What an attempt of a job has been charged so far: the attempt is known by when it started on the
 * job's own clock (its heartbeat's `startedAt`), and `seconds` is how much of it is already paid.
 */
export interface ChargedAttempt {
  startedAt: string | null;
  seconds: number;
}

/** The job's clock as its latest heartbeat gives it: when this attempt started, and the beat's time. */
export interface JobClock {
  startedAt: string;
  time: string;
}

export type GpuCharge =
  | { outcome: "charge"; seconds: number; attempt: ChargedAttempt }
  | { outcome: "nothing"; reason: "no_clock" | "older_attempt" | "already_charged" };

/**
 * GPU-seconds are the job's own time: what its clock says this attempt has run (beat time − start)
 * less what was charged for the attempt already, never negative. Control-plane time between two
 * looks (a worker that was down, restarted, or slow) never enters: two looks at the same beat charge
 * once. A beat with a later start is a new attempt, charged from its own start; one with an earlier
 * start is a file the previous attempt left behind, and charges nothing.
 */
export function gpuCharge(charged: ChargedAttempt, clock: JobClock | null): GpuCharge {
  if (!clock) return { outcome: "nothing", reason: "no_clock" };
  const start = Date.parse(clock.startedAt);
  const elapsed = Math.max(0, (Date.parse(clock.time) - start) / 1000);
  const known = charged.startedAt === null ? null : Date.parse(charged.startedAt);
  if (known !== null && start < known) return { outcome: "nothing", reason: "older_attempt" };
  const paid = known !== null && start === known ? charged.seconds : 0;
  const seconds = elapsed - paid;
  if (seconds <= 0) return { outcome: "nothing", reason: "already_charged" };
  return { outcome: "charge", seconds, attempt: { startedAt: clock.startedAt, seconds: elapsed } };
}

/** An attempt's own times as its executor knows them: its process's start and end (`null` while it runs), and that machine's now. */
export interface ProcessTimes {
  startedAt: string;
  endedAt: string | null;
  now: string;
}

/**
 * The clock a job is charged by: its heartbeat's, when the beat says when the attempt started;
 * otherwise its process's, from the executor: start to end once it has ended, start to the machine's
 * now while it runs and beats without a start. Before a running job's first beat nothing is charged:
 * it may yet beat with a start of its own, a later one, which would count as a new attempt and charge
 * its start-up twice; a job that never beats is charged its whole process time when it ends. A
 * process gone without an end record (a machine restart, a killed wrapper) has no known end, so
 * nothing more is charged for it.
 */
export function jobClock(heartbeat: { startedAt?: string; time: string } | null, process: ProcessTimes | null, running: boolean): JobClock | null {
  if (heartbeat?.startedAt) return { startedAt: heartbeat.startedAt, time: heartbeat.time };
  if (!process) return null;
  if (process.endedAt) return { startedAt: process.startedAt, time: process.endedAt };
  return running && heartbeat ? { startedAt: process.startedAt, time: process.now } : null;
}
