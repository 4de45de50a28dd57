/**
 * Every status a run, branch or job can be in, and which of them are still open. The worker, the API,
 * the CLI and the dashboard all read these lists; none keeps its own.
 */
export const RUN_STATUSES = ["pending", "running", "paused", "stopping", "finishing", "completed", "failed", "cancelled"] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
export const SETTLED_RUN_STATUSES = ["completed", "failed", "cancelled"] as const satisfies readonly RunStatus[];
/** Runs being stopped or ended: they take no new process, and a launch that lands in one ends its own. */
export const JOB_ENDING_RUN_STATUSES = ["stopping", ...SETTLED_RUN_STATUSES] as const satisfies readonly RunStatus[];
/** Runs the reconciler keeps moving: searching, cancelling jobs for a stop, or finishing with the sealed evaluation. */
export const RECONCILED_RUN_STATUSES = ["running", "stopping", "finishing"] as const satisfies readonly RunStatus[];

export const BRANCH_STATUSES = [
  "proposed", "queued", "training", "evaluating", "awaiting_decision", "promoted", "rejected", "vetoed", "failed", "cancelled",
] as const;
export type BranchStatus = (typeof BRANCH_STATUSES)[number];
/** A branch the loop still has work for, or a person still has a decision for. */
export const OPEN_BRANCH_STATUSES = ["proposed", "queued", "training", "evaluating", "awaiting_decision"] as const satisfies readonly BranchStatus[];
/** Open branches the reconciler drives (a proposed one is looked at again in case its design decision was missed). */
export const RECONCILED_BRANCH_STATUSES = ["proposed", "queued", "training", "evaluating", "awaiting_decision"] as const satisfies readonly BranchStatus[];
/** Judged and decided: the evidence harness evolution and skills learn from. */
export const DECIDED_BRANCH_STATUSES = ["promoted", "rejected", "vetoed"] as const satisfies readonly BranchStatus[];
/** Judged, waiting for its completion decision to be applied. */
export const SETTLING_BRANCH_STATUSES = ["evaluating", "awaiting_decision"] as const satisfies readonly BranchStatus[];

export const JOB_STATES = ["pending", "submitted", "running", "succeeded", "failed", "cancelled"] as const;
export type JobState = (typeof JOB_STATES)[number];
export const ACTIVE_JOB_STATES = ["pending", "submitted", "running"] as const satisfies readonly JobState[];

export function isSettledRun(status: string): boolean {
  return (SETTLED_RUN_STATUSES as readonly string[]).includes(status);
}

export function isActiveJob(state: string): boolean {
  return (ACTIVE_JOB_STATES as readonly string[]).includes(state);
}

export function isOpenBranch(status: string): boolean {
  return (OPEN_BRANCH_STATUSES as readonly string[]).includes(status);
}
