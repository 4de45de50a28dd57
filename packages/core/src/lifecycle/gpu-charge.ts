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
