export interface Backoff {
  initialDelayMs: number;
  maxDelayMs: number;
}

/**
 * The wait before the next connection attempt after `failures` failed ones in a row: doubling up to
 * the cap, with half of it random so that executors of many jobs do not reconnect in lockstep.
 */
export function backoffDelay(failures: number, { initialDelayMs, maxDelayMs }: Backoff, random = Math.random): number {
  const ceiling = Math.min(maxDelayMs, initialDelayMs * 2 ** Math.max(0, failures - 1));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}
