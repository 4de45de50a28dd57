import { z } from "zod";

// Payloads of the LLM proposer's events as the worker writes them, read leniently so that an
// older or partial row still lists.

/** `llm_call`: one call (prompt, answer, model, tokens, dollars) and its round. */
export const llmCallPayloadSchema = z.looseObject({
  round: z.number().optional(),
  promptVersion: z.string().default("?"),
  provider: z.string().default("?"),
  model: z.string().default("?"),
  attempt: z.number().default(1),
  outcome: z.string().default("?"),
  usage: z.object({ inputTokens: z.number(), outputTokens: z.number() }).default({ inputTokens: 0, outputTokens: 0 }),
  dollars: z.number().default(0),
  durationMs: z.number().default(0),
  rejections: z.array(z.string()).optional(),
  error: z.string().optional(),
  request: z.object({ system: z.string(), messages: z.array(z.object({ role: z.string(), content: z.string() })) }).optional(),
  response: z.object({ object: z.unknown().optional(), text: z.string().optional() }).optional(),
});

/** `proposer_fallback`: a round that used the rule-based proposer instead, and why. */
export const fallbackPayloadSchema = z.looseObject({
  round: z.number().optional(),
  to: z.string().default("rule-based"),
  reason: z.string().default("?"),
  message: z.string().default(""),
});

/** The part of a run's frozen config that says which proposer it uses and its LLM budget. */
export const proposerSettingsSchema = z.looseObject({
  search: z.looseObject({ proposer: z.string() }).optional(),
  llm: z.looseObject({ budgetDollars: z.number().optional() }).optional(),
});
