import { isServiceUnavailable, type ServiceStatus } from "@evotrainer/core";

const FIRST_WAIT_MS = 250;
const LONGEST_WAIT_MS = 5_000;

/**
 * Runs `attempt` until it succeeds or fails for a reason other than the service being away; while it is
 * away, says so once (on `status`) and tries again with a backoff that doubles up to 5 s. `attempt` must
 * be safe to repeat: a transaction that was cut either committed whole or not at all.
 */
export async function whileUnreachable<T>(status: ServiceStatus, attempt: () => Promise<T>, signal?: AbortSignal): Promise<T> {
  for (let failures = 0; ; failures++) {
    try {
      const value = await attempt();
      status.up();
      return value;
    } catch (error) {
      if (!isServiceUnavailable(error)) throw error;
      status.down(error instanceof Error ? error.message.split("\n").at(-1)!.trim() || error.name : String(error));
      signal?.throwIfAborted();
      await new Promise((resolve) => setTimeout(resolve, Math.min(FIRST_WAIT_MS * 2 ** failures, LONGEST_WAIT_MS)));
    }
  }
}
