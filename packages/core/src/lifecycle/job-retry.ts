/**
 * What follows a failed attempt of a job, whether the trainer failed or the job could not even be
 * launched: another attempt after a backoff, or the job is given up and its branch fails. Every
 * attempt counts, launches that threw included, so no job is tried more than `maxAttempts` times.
 */
export type JobRetryOutcome = { outcome: "retry"; delayMs: number } | { outcome: "give_up"; reason: "not_retriable" | "attempts_spent" };

/** `attempts`: attempts made so far, the failed one included. */
export function jobRetryRule(input: { retriable: boolean; attempts: number; maxAttempts: number }): JobRetryOutcome {
  if (!input.retriable) return { outcome: "give_up", reason: "not_retriable" };
  if (input.attempts >= input.maxAttempts) return { outcome: "give_up", reason: "attempts_spent" };
  return { outcome: "retry", delayMs: 1_000 * 2 ** input.attempts };
}
