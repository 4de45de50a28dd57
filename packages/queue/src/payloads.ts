import { z } from "zod";
import { QueueName } from "./queue-names.ts";

const id = z.string().min(1).max(64);
const runStep = z.strictObject({ runId: id, round: z.number().int().nonnegative() });
const branchStep = z.strictObject({ runId: id, branchId: id });
const jobStep = z.strictObject({ runId: id, branchId: id, jobId: id });

/**
 * The payload each queue carries: ids only, the rows they point at in Postgres being the truth; but
 * a trainer-args question comes before its run has a row, so it carries the run's config (checked
 * by the worker against the run config schema).
 */
export const payloadSchemas = {
  [QueueName.Propose]: runStep,
  [QueueName.Dispatch]: branchStep,
  [QueueName.Monitor]: jobStep,
  [QueueName.Verdict]: branchStep,
  [QueueName.Decide]: branchStep,
  [QueueName.Reconcile]: z.strictObject({}),
  // Without a job: carry out the run's stop; with one: cancel that job.
  [QueueName.Control]: z.strictObject({ runId: id, jobId: id.optional() }),
  [QueueName.Notify]: z.strictObject({ deliveryId: id, attempt: z.number().int().min(1).max(100) }),
  [QueueName.Search]: z.strictObject({ branchId: id }),
  [QueueName.TrainerArgs]: z.strictObject({ config: z.record(z.string(), z.unknown()) }),
} satisfies Record<QueueName, z.ZodType>;

export type Payload<Q extends QueueName> = z.infer<(typeof payloadSchemas)[Q]>;

/**
 * Deterministic id of a step, used to deduplicate it. Safe as a BullMQ job id too
 * (BullMQ forbids ":" and all-digit ids), hence the queue name first and "-" as separator.
 */
export function jobIdFor<Q extends QueueName>(queue: Q, payload: Payload<Q>): string {
  const parts = Object.keys(payload)
    .sort()
    .map((key) => String((payload as Record<string, unknown>)[key]));
  return [queue, ...parts].join("-");
}
