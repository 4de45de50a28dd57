export const NOTIFY_MAX_ATTEMPTS = 6;
export const NOTIFY_BASE_DELAY_MS = 30_000;

export type AfterFailure = { outcome: "retry"; delayMs: number } | { outcome: "dead" };

/** After the `attempt`-th failed delivery (1-based): wait base × 2^(attempt-1) (30 s by default), or give up after 6 attempts. */
export function afterFailedAttempt(attempt: number, baseDelayMs = NOTIFY_BASE_DELAY_MS): AfterFailure {
  if (!Number.isInteger(attempt) || attempt < 1) throw new Error(`attempt must be a positive integer, got ${attempt}`);
  if (attempt >= NOTIFY_MAX_ATTEMPTS) return { outcome: "dead" };
  return { outcome: "retry", delayMs: baseDelayMs * 2 ** (attempt - 1) };
}

/** Whether a receiver's HTTP status means "try again later" rather than success. */
export function deliveredOk(status: number): boolean {
  return status >= 200 && status < 300;
}
