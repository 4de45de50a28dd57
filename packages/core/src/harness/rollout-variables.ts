import type { CelInput } from "@bufbuild/cel";
import type { Rollout } from "@evotrainer/contract";
import { canonicalJson } from "../canonical-json.ts";
import { T, type VariableSchema } from "../cel/types.ts";

const TOOL_CALL = T.record("tool_call", { name: T.string, args: T.string });
// error: the data says the call failed; ok: the data says it succeeded (exit status 0). Both are false
// when the format records no status, so a rule can tell "known to have worked" from "unknown".
const TOOL_RESULT = T.record("tool_result", { name: T.string, content: T.string, error: T.bool, ok: T.bool });

/**
 * The declared rollout schema detectors are type-checked against: flat, snake_case variables, one
 * per field of the contract's rollout row, plus views derived from the trajectory.
 */
export const ROLLOUT_VARIABLES: VariableSchema = {
  uid: T.string,
  split: T.string,
  step: T.int,
  task_id: T.string,
  group_id: T.string,
  sample: T.int,
  prompt: T.string,
  // The response, or the assistant turns of a trajectory joined by newlines.
  response: T.string,
  reward: T.double,
  components: T.map(T.string, T.double),
  response_tokens: T.int,
  turns: T.int,
  finish_reason: T.string,
  truncated: T.bool,
  // A string ground truth as is; anything else as canonical JSON.
  ground_truth: T.string,
  has_tests: T.bool,
  tests_passed: T.int,
  tests_total: T.int,
  test_status: T.string,
  test_message: T.string,
  tool_calls: T.list(TOOL_CALL),
  // One line per tool call, "name args": one regex over all calls instead of one per call.
  tool_text: T.string,
  tool_results: T.list(TOOL_RESULT),
  // The final diff of an agentic (swe) episode: `extra.patch` when the trainer reports one.
  patch: T.string,
  // The recipe's response length limit (0 when unknown), so `truncated` can be inferred from tokens.
  max_response_tokens: T.int,
  extra: T.map(T.string, T.dyn),
};

/** Caps on what reaches CEL: with the AST limits they bound the cost of any accepted rule. */
export interface InputCaps {
  maxStringChars: number;
  maxListItems: number;
  maxArgChars: number;
}

export const DEFAULT_INPUT_CAPS: InputCaps = { maxStringChars: 65_536, maxListItems: 512, maxArgChars: 4_096 };

/**
 * Keeps the head and the tail of an over-long string: detectors look at how a response starts
 * (format) and how it ends (final answer, truncation), rarely at its exact middle.
 */
export function capString(s: string, max: number): string {
  if (s.length <= max) return s;
  const marker = `\n…[${s.length - max} characters cut]…\n`;
  const keep = Math.max(0, max - marker.length);
  const head = Math.ceil(keep / 2);
  return s.slice(0, head) + marker + s.slice(s.length - (keep - head));
}

export interface RolloutContext {
  maxResponseTokens?: number;
}

/** The CEL bindings of one rollout, built once and shared by every detector. */
export function rolloutBindings(r: Rollout, context: RolloutContext = {}, caps: InputCaps = DEFAULT_INPUT_CAPS): Record<string, CelInput> {
  const str = (s: string) => capString(s, caps.maxStringChars);
  const turns = r.trajectory ?? [];
  const response = r.response ?? turns.filter((t) => t.role === "assistant").map((t) => t.content).join("\n");
  const toolCalls = turns
    .flatMap((t) => t.toolCalls ?? [])
    .slice(0, caps.maxListItems)
    .map((c) => ({ name: c.name, args: capString(canonicalJson(c.arguments), caps.maxArgChars) }));
  const toolResults = turns
    .filter((t) => t.role === "tool")
    .slice(0, caps.maxListItems)
    .map((t) => ({ name: t.toolName ?? "", content: capString(t.content, caps.maxArgChars), error: t.isError ?? false, ok: t.isError === false }));
  const patch = r.extra?.["patch"];
  return {
    uid: r.uid,
    split: r.split,
    step: BigInt(r.step),
    task_id: r.taskId,
    group_id: r.groupId,
    sample: BigInt(r.sample),
    prompt: str(r.prompt),
    response: str(response),
    reward: r.reward,
    components: r.rewardComponents,
    response_tokens: BigInt(r.responseTokens),
    turns: BigInt(r.turns),
    finish_reason: r.finishReason ?? "",
    truncated: r.truncated,
    ground_truth: str(r.groundTruth === undefined ? "" : typeof r.groundTruth === "string" ? r.groundTruth : canonicalJson(r.groundTruth)),
    has_tests: r.testResults !== undefined,
    tests_passed: BigInt(r.testResults?.passed ?? 0),
    tests_total: BigInt(r.testResults?.total ?? 0),
    test_status: r.testResults?.status ?? "",
    test_message: str(r.testResults?.message ?? ""),
    tool_calls: toolCalls,
    tool_text: str(toolCalls.map((c) => `${c.name} ${c.args}`).join("\n")),
    tool_results: toolResults,
    patch: str(typeof patch === "string" ? patch : ""),
    max_response_tokens: BigInt(context.maxResponseTokens ?? 0),
    extra: (r.extra ?? {}) as Record<string, CelInput>,
  };
}
