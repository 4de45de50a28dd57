import { z } from "zod";

export const DEFAULT_REDIS_URL = "redis://127.0.0.1:6379";

export const redisEnvSchema = z.object({
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\/.+/, { error: `REDIS_URL must be a redis:// URL, e.g. ${DEFAULT_REDIS_URL}` })
    .default(DEFAULT_REDIS_URL),
  // Keeps several installations (or test files) apart on one Redis server.
  EVO_QUEUE_PREFIX: z.string().regex(/^[A-Za-z0-9_-]+$/, { error: "EVO_QUEUE_PREFIX: letters, digits, _ and - only" }).default("evo"),
});
