import type { LlmSettings } from "./llm-settings.ts";

export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
}

/** Estimated dollars of one call: tokens as the provider reported them, at the run's prices. */
export function callDollars(usage: TokenUsage, prices: LlmSettings["prices"]): number {
  return (usage.inputTokens * prices.inputPerMillion + usage.outputTokens * prices.outputPerMillion) / 1_000_000;
}
