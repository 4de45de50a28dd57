import { z } from "zod";
// Subpaths, not the package's index: every command reads its environment here, and a bundle chunk
// holds each file its importers reach through an index, whether they use it or not.
import { databaseEnvSchema, loadEnv } from "@evotrainer/db/env";
import { redisEnvSchema, trainerArgsEnvSchema } from "@evotrainer/queue";

export const cliEnvSchema = databaseEnvSchema.extend(redisEnvSchema.shape).extend(trainerArgsEnvSchema.shape).extend({
  EVO_WEB_PORT: z.coerce.number().int().min(1).max(65_535).default(3000),
  // Where the dashboard is reached, for the links the CLI prints; http://localhost:EVO_WEB_PORT without it.
  BETTER_AUTH_URL: z.url().optional(),
  // Who the CLI acts as for decisions; without it, the installation's local admin.
  EVO_API_KEY: z.string().min(1).optional(),
});

export type CliEnv = z.infer<typeof cliEnvSchema>;

export const loadCliEnv = (): CliEnv => loadEnv(cliEnvSchema, process.env, "evotrainer");
