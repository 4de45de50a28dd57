import { z } from "zod";
import { llmProviderSchema, llmSettingsSchema, type LlmSettings as ConfiguredSettings } from "@evotrainer/core";

/** The run's LLM settings with the environment applied: everything a call needs, the API key included. */
export interface LlmSettings extends Omit<ConfiguredSettings, "model"> {
  model: string;
  apiKey?: string;
}

// What a run without an `llm:` section gets: the config schema's own defaults.
const DEFAULTS: ConfiguredSettings = llmSettingsSchema.parse({});

const blankIsAbsent = (v: unknown) => (v === "" ? undefined : v);

// The environment may override what a run config says (one worker, one endpoint), and it is the
// only place the API key can come from.
const llmEnvSchema = z.object({
  EVO_LLM_PROVIDER: z.preprocess(blankIsAbsent, llmProviderSchema.optional()),
  EVO_LLM_BASE_URL: z.preprocess(blankIsAbsent, z.url().optional()),
  EVO_LLM_API_KEY: z.preprocess(blankIsAbsent, z.string().optional()),
  EVO_LLM_MODEL: z.preprocess(blankIsAbsent, z.string().optional()),
});

export type ResolvedLlmSettings = { ok: true; settings: LlmSettings } | { ok: false; message: string };

/** A run's `llm:` settings filled or overridden by EVO_LLM_*; what is still missing is named. */
export function resolveLlmSettings(configured: ConfiguredSettings | undefined, env: Readonly<Record<string, string | undefined>>): ResolvedLlmSettings {
  const parsed = llmEnvSchema.safeParse(env);
  if (!parsed.success) {
    return { ok: false, message: `invalid LLM environment: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}` };
  }
  const e = parsed.data;
  const base = configured ?? DEFAULTS;
  const provider = e.EVO_LLM_PROVIDER ?? base.provider;
  const model = e.EVO_LLM_MODEL ?? base.model;
  const baseUrl = e.EVO_LLM_BASE_URL ?? base.baseUrl;
  if (model === undefined) return { ok: false, message: "no model: set llm.model in the run config or EVO_LLM_MODEL" };
  if (provider === "openai-compatible" && baseUrl === undefined) {
    return { ok: false, message: "no endpoint: set llm.baseUrl in the run config or EVO_LLM_BASE_URL" };
  }
  if (provider === "anthropic" && e.EVO_LLM_API_KEY === undefined) return { ok: false, message: "no API key: set EVO_LLM_API_KEY" };
  return {
    ok: true,
    settings: {
      ...base,
      provider,
      model,
      ...(baseUrl !== undefined ? { baseUrl } : {}),
      ...(e.EVO_LLM_API_KEY !== undefined ? { apiKey: e.EVO_LLM_API_KEY } : {}),
    },
  };
}
