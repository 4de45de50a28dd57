import { z } from "zod";
import { databaseEnvSchema, loadEnv } from "@evotrainer/db";
import { redisEnvSchema } from "@evotrainer/queue";

export const workerEnvSchema = databaseEnvSchema.extend(redisEnvSchema.shape).extend({
  EVO_RECONCILE_EVERY_MS: z.coerce.number().int().min(1_000).default(15_000),
});

export type WorkerEnv = z.infer<typeof workerEnvSchema>;

export const loadWorkerEnv = (source: Record<string, string | undefined> = process.env): WorkerEnv =>
  loadEnv(workerEnvSchema, source, "worker");
