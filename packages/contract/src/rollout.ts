import { z } from "zod";

/** Splits a rollout can belong to: training, and the two halves of the locked evaluation. */
export const splitSchema = z.enum(["train", "promotion", "sealed"]);
export type Split = z.infer<typeof splitSchema>;

export const toolCallSchema = z.object({
  id: z.string().optional(),
  name: z.string().min(1),
  arguments: z.record(z.string(), z.unknown()).default({}),
});
export type ToolCall = z.infer<typeof toolCallSchema>;

/** One turn of a multi-turn trajectory (chat-completions roles; tool results carry the tool's name). */
export const turnSchema = z.object({
  role: z.enum(["system", "user", "assistant", "tool"]),
  content: z.string(),
  toolCalls: z.array(toolCallSchema).optional(),
  toolName: z.string().optional(),
  isError: z.boolean().optional(),
});
export type Turn = z.infer<typeof turnSchema>;

/** Outcome of running tests or a grader against the response, when the task has them. */
export const testResultsSchema = z.object({
  passed: z.number().int().nonnegative(),
  total: z.number().int().nonnegative(),
  // Grader's own class, e.g. "Wrong Answer", "Time Limit Exceeded", "Runtime Error", "Compilation Error".
  status: z.string().optional(),
  message: z.string().optional(),
});
export type TestResults = z.infer<typeof testResultsSchema>;

/**
 * The completion token by token as the training policy scored it: log-probability of each sampled
 * token, its entropy where the trainer computes it, and the decoded piece so the two line up with text.
 */
export const tokenStatsSchema = z
  .object({
    logprobs: z.array(z.number()).min(1),
    entropies: z.array(z.number()).optional(),
    pieces: z.array(z.string()).optional(),
  })
  .refine((t) => (t.entropies ?? t.logprobs).length === t.logprobs.length && (t.pieces ?? t.logprobs).length === t.logprobs.length, {
    error: "tokens.entropies and tokens.pieces must have one entry per log-prob",
    path: ["logprobs"],
  });
export type TokenStats = z.infer<typeof tokenStatsSchema>;

/**
 * One line of `rollouts/{train,eval}/step_{N}.jsonl` (evo.job/v1). Run, branch and job ids are
 * not in the line: they come from the job the file belongs to.
 */
export const rolloutSchema = z
  .object({
    // Stable per branch: the same rollout always gets the same uid, so re-ingest is idempotent.
    uid: z.string().min(1),
    split: splitSchema,
    step: z.number().int().nonnegative(),
    taskId: z.string().min(1),
    groupId: z.string().min(1),
    sample: z.number().int().nonnegative(),
    prompt: z.string(),
    response: z.string().optional(),
    trajectory: z.array(turnSchema).optional(),
    // null: no result is known (an imported trajectory whose harness result is missing). Unknown is
    // not a failure: informativeness, backtests and the gate leave such rollouts out.
    reward: z.number().nullable(),
    rewardComponents: z.record(z.string(), z.number()).default({}),
    responseTokens: z.number().int().nonnegative(),
    turns: z.number().int().positive().default(1),
    // "stop" | "length" | "tool_calls" | "error" | trainer-specific values.
    finishReason: z.string().optional(),
    truncated: z.boolean().default(false),
    groundTruth: z.unknown().optional(),
    testResults: testResultsSchema.optional(),
    // Optional: recorded by trainers that have them (the TRL wrapper); imported data usually has neither.
    advantage: z.number().optional(),
    tokens: tokenStatsSchema.optional(),
    extra: z.record(z.string(), z.unknown()).optional(),
    // The job attempt that wrote the line (job.json's `attempt`): a later attempt's lines of a step
    // replace an earlier one's. Absent in imported data, which has one attempt.
    attempt: z.number().int().positive().optional(),
  })
  .refine((r) => r.response !== undefined || r.trajectory !== undefined, {
    error: "a rollout needs a response or a trajectory",
    path: ["response"],
  });
export type Rollout = z.infer<typeof rolloutSchema>;
/** A rollout whose result is known: the only kind reward statistics, backtests and the gate read. */
export type ScoredRollout = Rollout & { reward: number };
export const hasResult = (r: Rollout): r is ScoredRollout => r.reward !== null;
