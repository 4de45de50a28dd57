import type { LlmSettings } from "./llm-settings.ts";
import type { TokenUsage } from "./llm-cost.ts";

export type LlmCallOutcome = "ok" | "rejected" | "malformed" | "timeout" | "error";

/**
 * One call to the model, as stored for audit (the `llm_call` event): the exact prompt, what came
 * back, the model, tokens and estimated dollars. Never the API key.
 */
export interface LlmCall {
  promptVersion: string;
  provider: LlmSettings["provider"];
  model: string;
  /** 1, or 2 when the first answer was refused and sent back with the reasons. */
  attempt: number;
  request: { system: string; messages: { role: "user" | "assistant"; content: string }[] };
  /** The parsed answer, or the raw text when it did not parse. */
  response: { object?: unknown; text?: string };
  usage: TokenUsage;
  dollars: number;
  durationMs: number;
  outcome: LlmCallOutcome;
  /** Why each refused item of the answer was refused. */
  rejections?: string[];
  error?: string;
}
