import type { LanguageModel } from "ai";
import type { LlmSettings } from "./llm-settings.ts";

/** The model a run's settings name, on the endpoint they name; its provider's SDK is loaded on first use. */
export async function languageModel(settings: LlmSettings): Promise<LanguageModel> {
  if (settings.provider === "anthropic") {
    const { createAnthropic } = await import("@ai-sdk/anthropic");
    // Passed explicitly so that the SDK never falls back to ANTHROPIC_API_KEY / ANTHROPIC_BASE_URL.
    return createAnthropic({ apiKey: settings.apiKey, baseURL: settings.baseUrl ?? "https://api.anthropic.com/v1" })(settings.model);
  }
  const { createOpenAICompatible } = await import("@ai-sdk/openai-compatible");
  return createOpenAICompatible({
    name: "evotrainer",
    baseURL: settings.baseUrl!,
    ...(settings.apiKey !== undefined ? { apiKey: settings.apiKey } : {}),
    // vLLM, OpenAI and OpenRouter constrain decoding to a JSON schema; the prompt describes it too.
    supportsStructuredOutputs: true,
    includeUsage: true,
  }).chatModel(settings.model);
}
