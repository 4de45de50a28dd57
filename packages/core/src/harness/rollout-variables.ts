import type { CelInput } from "@bufbuild/cel";
import type { Rollout } from "@evotrainer/contract";
import { canonicalJson } from "../canonical-json.ts";
import { T, type VariableSchema } from "../cel/types.ts";
import { isRefusal, type ToolCallView } from "../text/tool-calls.ts";

// result: the output of the result that answered the call ("" when none did); ok: that result says the
// call succeeded (exit status 0); refused: it says the tool refused the action (an editor's syntax
// guard, old_str not found), so nothing changed.
const TOOL_CALL = T.record("tool_call", { name: T.string, args: T.string, result: T.string, ok: T.bool, refused: T.bool });
// error: the data says the call failed; ok: the data says it succeeded (exit status 0). Both are false
// when the format records no status, so a rule can tell "known to have worked" from "unknown". call:
// the index in tool_calls of the call it answers (the last one issued before it; -1 when none was),
// so a rule can place a result before or after a call (first_call_on, last_call_on).
const TOOL_RESULT = T.record("tool_result", { name: T.string, content: T.string, error: T.bool, ok: T.bool, call: T.int });

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

/**
 * The CEL bindings of one rollout, shared by every detector. Each variable is computed when a rule
 * first reads it and kept: a catalog that never reads `response` never joins a trajectory's turns,
 * one that reads no tool call never serialises their arguments.
 */
class RolloutBindings {
  private responseText?: string;
  private calls?: ToolCallView[];
  private callText?: string;
  private results?: { name: string; content: string; error: boolean; ok: boolean; call: bigint }[];
  private patchText?: string;
  private truth?: string;

  constructor(
    private readonly r: Rollout,
    private readonly context: RolloutContext,
    private readonly caps: InputCaps,
  ) {}

  private str(s: string): string {
    return capString(s, this.caps.maxStringChars);
  }

  get uid() { return this.r.uid; }
  get split() { return this.r.split; }
  get step() { return BigInt(this.r.step); }
  get task_id() { return this.r.taskId; }
  get group_id() { return this.r.groupId; }
  get sample() { return BigInt(this.r.sample); }
  get prompt() { return this.str(this.r.prompt); }
  get response() {
    return (this.responseText ??= this.str(this.r.response ?? (this.r.trajectory ?? []).filter((t) => t.role === "assistant").map((t) => t.content).join("\n")));
  }
  get reward() { return this.r.reward; }
  get components() { return this.r.rewardComponents; }
  get response_tokens() { return BigInt(this.r.responseTokens); }
  get turns() { return BigInt(this.r.turns); }
  get finish_reason() { return this.r.finishReason ?? ""; }
  get truncated() { return this.r.truncated; }
  get ground_truth() {
    const g = this.r.groundTruth;
    return (this.truth ??= this.str(g === undefined ? "" : typeof g === "string" ? g : canonicalJson(g)));
  }
  get has_tests() { return this.r.testResults !== undefined; }
  get tests_passed() { return BigInt(this.r.testResults?.passed ?? 0); }
  get tests_total() { return BigInt(this.r.testResults?.total ?? 0); }
  get test_status() { return this.r.testResults?.status ?? ""; }
  get test_message() { return this.str(this.r.testResults?.message ?? ""); }
  get tool_calls() {
    if (this.calls) return this.calls;
    const calls: ToolCallView[] = [];
    // The results after a turn answer its calls in order; one more than it made answers its last.
    let unanswered: ToolCallView[] = [];
    for (const t of this.r.trajectory ?? []) {
      if (t.role === "tool") {
        const answered = unanswered.shift() ?? calls.at(-1);
        if (answered && answered.result === "") {
          answered.result = capString(t.content, this.caps.maxArgChars);
          answered.ok = t.isError === false;
          answered.refused = isRefusal(t.content);
        }
        continue;
      }
      if (t.toolCalls?.length) unanswered = [];
      for (const c of t.toolCalls ?? []) {
        if (calls.length === this.caps.maxListItems) return (this.calls = calls);
        const call = { name: c.name, args: capString(canonicalJson(c.arguments), this.caps.maxArgChars), result: "", ok: false, refused: false };
        calls.push(call);
        unanswered.push(call);
      }
    }
    return (this.calls = calls);
  }
  get tool_text() { return (this.callText ??= this.str(this.tool_calls.map((c) => `${c.name} ${c.args}`).join("\n"))); }
  get tool_results() {
    if (this.results) return this.results;
    const results: { name: string; content: string; error: boolean; ok: boolean; call: bigint }[] = [];
    let calls = 0;
    for (const t of this.r.trajectory ?? []) {
      calls += t.toolCalls?.length ?? 0;
      if (t.role !== "tool") continue;
      if (results.length === this.caps.maxListItems) break;
      results.push({ name: t.toolName ?? "", content: capString(t.content, this.caps.maxArgChars), error: t.isError ?? false, ok: t.isError === false, call: BigInt(calls - 1) });
    }
    return (this.results = results);
  }
  get patch() {
    const patch = this.r.extra?.["patch"];
    return (this.patchText ??= this.str(typeof patch === "string" ? patch : ""));
  }
  get max_response_tokens() { return BigInt(this.context.maxResponseTokens ?? 0); }
  get extra() { return (this.r.extra ?? {}) as Record<string, CelInput>; }
}

/** The CEL bindings of one rollout: one variable per name of ROLLOUT_VARIABLES, each computed when first read. */
export function rolloutBindings(r: Rollout, context: RolloutContext = {}, caps: InputCaps = DEFAULT_INPUT_CAPS): Readonly<Record<string, CelInput>> {
  // Getters on a class, not own properties: CEL and the closures read variables by name, which both serve.
  return new RolloutBindings(r, context, caps) as unknown as Readonly<Record<string, CelInput>>;
}
