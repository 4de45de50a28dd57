import { z } from "zod";
import { databaseEnvSchema, loadEnv, webhookAllowList } from "@evotrainer/db";
import { redisEnvSchema, trainerArgsEnvSchema } from "@evotrainer/queue";

const authEnvSchema = z.object({
  // Signs session cookies. Unset: a random one is generated once and kept in .evotrainer/ (gitignored).
  BETTER_AUTH_SECRET: z.string().min(32, { error: "BETTER_AUTH_SECRET: at least 32 characters (openssl rand -base64 32)" }).optional(),
  // The dashboard's public URL, when it sits behind a proxy; inferred from requests otherwise.
  BETTER_AUTH_URL: z.url().optional(),
  // Ranges of on-premises webhook receivers (docs/security.md); checked here so a bad value is named before any webhook is made.
  EVO_WEBHOOK_ALLOW_CIDRS: z
    .string()
    .optional()
    .superRefine((value, ctx) => {
      try {
        webhookAllowList({ EVO_WEBHOOK_ALLOW_CIDRS: value });
      } catch (error) {
        ctx.addIssue({ code: "custom", message: (error as Error).message });
      }
    }),
});

export const env = loadEnv(databaseEnvSchema.extend(redisEnvSchema.shape).extend(trainerArgsEnvSchema.shape).extend(authEnvSchema.shape), process.env, "web");
