import { z } from "zod";

export const llmProviderSchema = z.enum(["openai-compatible", "anthropic"]);
export type LlmProvider = z.infer<typeof llmProviderSchema>;

/**
 * The run's LLM proposer settings (`llm:` in a run config). The API key is deliberately absent:
 * it comes from the worker's environment only, so it never lands in a config, the database or an
 * event. EVO_LLM_PROVIDER, EVO_LLM_BASE_URL and EVO_LLM_MODEL fill or override these.
 */
export const llmSettingsSchema = z.strictObject({
  provider: llmProviderSchema.default("openai-compatible"),
  // e.g. "Qwen/Qwen3-8B" on a vLLM server, "anthropic/claude-sonnet-4.5" on OpenRouter.
  model: z.string().min(1).optional(),
  // The API root: "http://gpu-node:8000/v1" for vLLM; the provider's own when absent (Anthropic only).
  baseUrl: z.url().optional(),
  // Estimated dollars the run may spend on LLM calls; once spent, rounds fall back to the rule-based proposer.
  budgetDollars: z.number().nonnegative().default(5),
  // Dollars per million tokens; 0 for a self-hosted model.
  prices: z
    .strictObject({ inputPerMillion: z.number().nonnegative(), outputPerMillion: z.number().nonnegative() })
    .default({ inputPerMillion: 0, outputPerMillion: 0 }),
  timeoutMs: z.number().int().min(100).max(600_000).default(120_000),
  // Room for the answer: K interventions and a few detectors with their cases.
  maxOutputTokens: z.number().int().min(256).default(8_192),
  // Characters of evidence (report, lineage, example rollouts) one prompt may carry.
  evidenceChars: z.number().int().min(2_000).max(400_000).default(40_000),
});
export type LlmSettings = z.infer<typeof llmSettingsSchema>;
