import { z } from "zod";

export const DEFAULT_DATABASE_URL = "postgresql://postgres@127.0.0.1:5432/evotrainer";

export const databaseEnvSchema = z.object({
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\/.+/, {
      error: `DATABASE_URL must be a postgresql:// connection string, e.g. ${DEFAULT_DATABASE_URL}`,
    })
    .default(DEFAULT_DATABASE_URL),
});

/**
 * Validates an app's environment once at start-up. On failure the message lists every
 * variable that is wrong and what it should be, so the user knows what to set.
 */
export function loadEnv<T extends z.ZodType>(schema: T, source: Record<string, string | undefined>, app: string): z.infer<T> {
  const result = schema.safeParse(source);
  if (result.success) return result.data;
  const lines = result.error.issues.map((issue) => `  - ${issue.path.join(".") || "(env)"}: ${issue.message}`);
  throw new Error(`${app}: invalid environment (set these in the shell or in .env):\n${lines.join("\n")}`);
}
