import { z } from "zod";
// Subpaths, not the package's index: every command reads its environment here, and a bundle chunk
// holds each file its importers reach through an index, whether they use it or not.
import { databaseEnvSchema, loadEnv } from "@evotrainer/db/env";
import { redisEnvSchema } from "@evotrainer/queue";

export const cliEnvSchema = databaseEnvSchema.extend(redisEnvSchema.shape).extend({
  EVO_WEB_PORT: z.coerce.number().int().min(1).max(65_535).default(3000),
  // Where the dashboard is reached, for the links the CLI prints; http://localhost:EVO_WEB_PORT without it.
  BETTER_AUTH_URL: z.url().optional(),
  // Who the CLI acts as for decisions; without it, the installation's local admin.
  EVO_API_KEY: z.string().min(1).optional(),
  // How long `evotrainer run` waits for a worker to take the check of a remote run's trainer
  // arguments before it creates the run unchecked, with a warning.
  EVO_TRAINER_CHECK_PICKUP_S: z.coerce.number().min(1).max(600).default(15),
});

export type CliEnv = z.infer<typeof cliEnvSchema>;

export const loadCliEnv = (): CliEnv => loadEnv(cliEnvSchema, process.env, "evotrainer");
