import { databaseEnvSchema, loadEnv } from "@evotrainer/db";
import { redisEnvSchema } from "@evotrainer/queue";

export const env = loadEnv(databaseEnvSchema.extend(redisEnvSchema.shape), process.env, "web");
