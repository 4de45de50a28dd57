import type { ScontrolJob } from "./scontrol-job.ts";

/** Why Slurm ended (or re-queued) a job under it: none of them says anything about the job itself. */
export type SlurmInfrastructureCause = "preempted" | "node_fail" | "boot_fail" | "requeued";

/**
 * Where a Slurm job is in its life, from what the controller says of it. Infrastructure outcomes
 * are the cluster's doing and are retried; the others are the job's own.
 */
export type SlurmOutcome =
  | { kind: "pending"; reason: string }
  | { kind: "running" }
  | { kind: "completed" }
  | { kind: "failed"; state: string; exitCode: number; signal: number | null }
  | { kind: "timeout"; timeLimit: string }
  | { kind: "cancelled"; by: string | null }
  | { kind: "out_of_memory" }
  | { kind: "infrastructure"; cause: SlurmInfrastructureCause; detail: string };

// States in which the batch script may still run, or run again: CONFIGURING (nodes booting) and
// SUSPENDED/STOPPED (a person or a preemption paused it) come back on their own.
const PENDING = new Set(["PENDING", "CONFIGURING", "REQUEUED", "REQUEUE_HOLD", "REQUEUE_FED", "RESV_DEL_HOLD"]);
const RUNNING = new Set(["RUNNING", "COMPLETING", "SUSPENDED", "STOPPED", "SIGNALING", "STAGE_OUT", "RESIZING"]);

/**
 * Whether Slurm is done with the job: no batch script of it runs or will run. A job being requeued
 * passes through COMPLETING on its way back to PENDING: it is not done.
 */
export function slurmJobEnded(job: ScontrolJob): boolean {
  const base = (job.JobState ?? "").split(/[\s+]/)[0]!;
  return base !== "" && !PENDING.has(base) && !RUNNING.has(base);
}

/** `ExitCode=3:0`: the batch script's exit code and the signal that ended it (0 for none). */
function exitOf(job: ScontrolJob): { exitCode: number; signal: number | null } {
  const match = /^(\d+):(\d+)$/.exec(job.ExitCode ?? "");
  if (!match) return { exitCode: 1, signal: null };
  const signal = Number(match[2]);
  return { exitCode: Number(match[1]), signal: signal === 0 ? null : signal };
}

/** sacct's spelling of a cancellation, `CANCELLED by 1000`; scontrol says only `CANCELLED`. */
function cancelledBy(state: string): string | null {
  return /^CANCELLED by (\S+)/.exec(state)?.[1] ?? null;
}

/**
 * The outcome of a job as `scontrol show job` (or sacct's State) describes it. A job Slurm put
 * back in its queue (Restarts > 0: `scontrol requeue`, a preemption in requeue mode, a node that
 * failed under it) is this attempt's end: EvoTrainer submits each attempt itself and never asks
 * for a requeue, so the rerun Slurm would make on its own is replaced by a retry that counts.
 */
export function slurmOutcome(job: ScontrolJob): SlurmOutcome {
  const state = job.JobState ?? "";
  const base = state.split(/[\s+]/)[0]!;
  const reason = job.Reason && job.Reason !== "None" ? job.Reason : null;
  const restarts = Number(job.Restarts ?? 0);
  if (base === "COMPLETED") return { kind: "completed" };
  if (base === "FAILED") return { kind: "failed", state: base, ...exitOf(job) };
  if (base === "TIMEOUT") return { kind: "timeout", timeLimit: job.TimeLimit ?? "its limit" };
  // A deadline (`--deadline`) ends a job the way its time limit does: a rerun cannot beat it.
  if (base === "DEADLINE") return { kind: "timeout", timeLimit: `the deadline ${job.Deadline ?? ""}`.trim() };
  if (base === "CANCELLED") return { kind: "cancelled", by: cancelledBy(state) };
  if (base === "OUT_OF_MEMORY") return { kind: "out_of_memory" };
  if (base === "PREEMPTED") return { kind: "infrastructure", cause: "preempted", detail: `preempted${reason ? ` (${reason})` : ""}` };
  if (base === "NODE_FAIL") return { kind: "infrastructure", cause: "node_fail", detail: `a node failed under it${reason ? ` (${reason})` : ""}${job.NodeList ? ` on ${job.NodeList}` : ""}` };
  if (base === "BOOT_FAIL") return { kind: "infrastructure", cause: "boot_fail", detail: `its node failed to boot${reason ? ` (${reason})` : ""}` };
  if (restarts > 0 && (PENDING.has(base) || RUNNING.has(base))) {
    return { kind: "infrastructure", cause: "requeued", detail: `requeued by Slurm (Restarts=${restarts}: scontrol requeue, a preemption or a node failure), now ${state}${reason ? ` (${reason})` : ""}` };
  }
  if (PENDING.has(base)) return { kind: "pending", reason: reason ?? base };
  if (RUNNING.has(base)) return { kind: "running" };
  // SPECIAL_EXIT, REVOKED and states newer than this mapping: ended, for reasons only the state names.
  return { kind: "failed", state: base || "(no state)", ...exitOf(job) };
}
