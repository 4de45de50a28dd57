/** What an organization's webhooks are told about. */
export type NotificationKind =
  | "branch_awaiting_decision"
  | "run_finished"
  | "run_failed"
  | "run_paused"
  | "budget_80"
  | "job_failed"
  | "test";

export interface Notification {
  kind: NotificationKind;
  runId: string;
  branchId: string | null;
  /** One human sentence; Slack shows it, generic receivers get it as `summary`. */
  summary: string;
  /** Path inside the dashboard, joined to the public URL by whoever delivers. */
  path: string;
}

export interface LedgerEvent {
  runId: string;
  branchId?: string | null;
  type: string;
  payload: unknown;
}

function field(payload: unknown, key: string): unknown {
  return payload !== null && typeof payload === "object" ? (payload as Record<string, unknown>)[key] : undefined;
}

/** What a person calls the run and the branch an event is about: ids mean nothing in a Slack channel. */
export interface NotificationNames {
  runName: string;
  branchVersion: number | null;
}

const runPath = (runId: string) => `/runs/${runId}`;

/**
 * Which ledger events notify, and how. Null for events nobody is paged about.
 */
export function notificationFor(event: LedgerEvent, names: NotificationNames): Notification | null {
  const { runId } = event;
  const branchId = event.branchId ?? null;
  const run = `run ${names.runName}`;
  const Run = `Run ${names.runName}`;
  const branch = names.branchVersion === null ? "A branch" : `Branch v${names.branchVersion}`;
  switch (event.type) {
    case "awaiting_decision":
      if (!branchId) return null;
      return { kind: "branch_awaiting_decision", runId, branchId, summary: `${branch} of ${run} awaits a decision`, path: `/runs/${runId}/branches/${branchId}` };
    case "run_finished": {
      // The worker records a run that ended without a result as run_finished with an error.
      const error = field(event.payload, "error");
      if (typeof error === "string" && error) return { kind: "run_failed", runId, branchId, summary: `${Run} failed: ${error.slice(0, 300)}`, path: runPath(runId) };
      if (field(event.payload, "stopped") === true) return { kind: "run_finished", runId, branchId, summary: `${Run} was stopped before any branch finished training`, path: runPath(runId) };
      return { kind: "run_finished", runId, branchId, summary: `${Run} finished`, path: runPath(runId) };
    }
    case "run_paused":
      return { kind: "run_paused", runId, branchId, summary: `${Run} paused`, path: runPath(runId) };
    case "run_stopped":
      // A stop with the sealed evaluation goes on to run_finished; one without it ends the run here.
      if (field(event.payload, "sealed") !== false) return null;
      return { kind: "run_finished", runId, branchId, summary: `${Run} was stopped without its sealed evaluation`, path: runPath(runId) };
    case "budget_80":
      return { kind: "budget_80", runId, branchId, summary: `${Run} has spent 80% of its budget`, path: runPath(runId) };
    case "failure": {
      // Retries are job_retry events: a failure is final for its job.
      const reason = field(event.payload, "message") ?? field(event.payload, "reason");
      const because = typeof reason === "string" && reason ? `: ${reason.slice(0, 300)}` : "";
      const path = branchId ? `/runs/${runId}/branches/${branchId}` : runPath(runId);
      return { kind: "job_failed", runId, branchId, summary: `A job of ${names.branchVersion === null ? run : `branch v${names.branchVersion} of ${run}`} failed for good${because}`, path };
    }
    default:
      return null;
  }
}
