import { z } from "zod";
import { askWorkers, type AskWaits } from "./ask-workers.ts";
import type { Producer } from "./producer.ts";
import { QueueName } from "./queue-names.ts";

/**
 * A worker's answer about a run's trainer arguments: every key known (`accepted`), some refused
 * with one line each naming its config field (or the interpreter that could not answer), or not
 * checked because the place the run's jobs go could not be asked (no node yet, unreachable).
 */
export const trainerArgsAnswerSchema = z.discriminatedUnion("verdict", [
  z.strictObject({ verdict: z.literal("accepted"), where: z.string() }),
  z.strictObject({ verdict: z.literal("refused"), where: z.string(), problems: z.array(z.string()).min(1) }),
  z.strictObject({ verdict: z.literal("unchecked"), reason: z.string() }),
]);
export type TrainerArgsAnswer = z.infer<typeof trainerArgsAnswerSchema>;

// A worker that is up takes a question at once; a pod's scheduling and image pull may take minutes.
export const TRAINER_ARGS_WAITS: AskWaits = { pickupMs: 15_000, answerMs: 330_000 };

/**
 * How long a run's creation (`evotrainer run`, the API's run.create) waits for a worker to take the
 * check of its trainer arguments before it creates the run unchecked, with a warning.
 */
export const trainerArgsEnvSchema = z.object({
  EVO_TRAINER_CHECK_PICKUP_S: z.coerce.number().min(1).max(600).default(TRAINER_ARGS_WAITS.pickupMs / 1_000),
});

export const trainerArgsWaits = (env: z.infer<typeof trainerArgsEnvSchema>): AskWaits => ({ ...TRAINER_ARGS_WAITS, pickupMs: env.EVO_TRAINER_CHECK_PICKUP_S * 1_000 });

/** Asks a worker to check a run's trainer arguments where its jobs would run; `unchecked` when none answers in time. */
export async function askTrainerArgs(producer: Producer, config: Record<string, unknown>, waits: AskWaits = TRAINER_ARGS_WAITS): Promise<TrainerArgsAnswer> {
  const reply = await askWorkers(producer, QueueName.TrainerArgs, { config }, waits);
  if (!reply.answered) return { verdict: "unchecked", reason: reply.reason };
  const answer = trainerArgsAnswerSchema.safeParse(reply.value);
  return answer.success ? answer.data : { verdict: "unchecked", reason: "the worker's answer was not understood (is it older than this program?)" };
}

/** What a person reads when a run is created with its trainer arguments unchecked. */
export function uncheckedTrainerArgsWarning(reason: string): string {
  return `WARNING: the run's trainer arguments were not checked before it was created (${reason}); the trainer checks them when the run's first job starts, and a key it does not take fails that job as a config error`;
}
