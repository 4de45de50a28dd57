import type { Rollout, ToolCall, Turn } from "@evotrainer/contract";
import { agentRollout } from "./agent-rollout.ts";
import { contentText } from "./openai-turns.ts";
import { swebenchInstanceResult, type SwebenchResult } from "./swebench-report.ts";
import { isRecord, TrajectoryShapeError, unknownFields } from "./trajectory-error.ts";

// The row's fields the rollout holds elsewhere: the id, the events (the turns), the patch.
const TOP_KEYS = new Set(["instance_id", "history", "report"]);
// An action's own bookkeeping, not the call the model made.
const ACTION_BOOKKEEPING = new Set(["thought", "is_input", "blocking", "hidden", "confirmation_state", "impl_source", "is_static", "cwd", "security_risk"]);
// Events that feed the prompt or the controller, not the conversation: workspace recall, condensation, state changes.
const SKIPPED_ACTIONS = new Set(["recall", "condensation", "change_agent_state", "null"]);
const SKIPPED_OBSERVATIONS = new Set(["recall", "agent_state_changed", "null", "condense"]);
// OpenHands' controller errors that mean a budget ended the episode, not the agent.
const LIMIT_ERROR = /maximum iteration|maximum budget|budget exceeded|context ?window|ContextWindowExceeded|max_iterations/i;

export interface OpenHandsOptions {
  /** SWE-bench results by instance id (report.json or output.swebench_eval.jsonl beside output.jsonl, or `--report`). */
  report?: ReadonlyMap<string, SwebenchResult>;
  /** Where the row was read (`file:line`), for error messages. */
  where: string;
}

/** The call as the model sent it: the model response's tool call of this id, its arguments parsed. */
function modelCall(metadata: Record<string, unknown>): { arguments?: Record<string, unknown>; content?: string; responseId?: string; completionTokens?: number } {
  const response = isRecord(metadata["model_response"]) ? metadata["model_response"] : {};
  const choice = Array.isArray(response["choices"]) && isRecord(response["choices"][0]) ? response["choices"][0] : {};
  const message = isRecord(choice["message"]) ? choice["message"] : {};
  const calls = Array.isArray(message["tool_calls"]) ? message["tool_calls"].filter(isRecord) : [];
  const call = calls.find((c) => c["id"] === metadata["tool_call_id"]);
  const fn = call && isRecord(call["function"]) ? call["function"] : undefined;
  let args: Record<string, unknown> | undefined;
  if (typeof fn?.["arguments"] === "string") {
    try {
      const parsed: unknown = JSON.parse(fn["arguments"]);
      if (isRecord(parsed)) args = parsed;
    } catch {
      args = { raw: fn["arguments"] };
    }
  }
  const usage = isRecord(response["usage"]) ? response["usage"] : {};
  return {
    ...(args ? { arguments: args } : {}),
    ...(typeof message["content"] === "string" || Array.isArray(message["content"]) ? { content: contentText(message["content"], "model response") } : {}),
    ...(typeof response["id"] === "string" ? { responseId: response["id"] } : {}),
    ...(typeof usage["completion_tokens"] === "number" ? { completionTokens: usage["completion_tokens"] } : {}),
  };
}

/** What the model read of an observation: a command's output comes with the prefix and suffix OpenHands adds (exit code, timeout notice). */
function observationText(event: Record<string, unknown>, extras: Record<string, unknown>): string {
  const content = typeof event["content"] === "string" ? event["content"] : typeof event["message"] === "string" ? event["message"] : "";
  const metadata = isRecord(extras["metadata"]) ? extras["metadata"] : {};
  const prefix = typeof metadata["prefix"] === "string" ? metadata["prefix"] : "";
  const suffix = typeof metadata["suffix"] === "string" ? metadata["suffix"] : "";
  return `${prefix}${content}${suffix}`;
}

/** A command's exit code (extras.metadata.exit_code, or extras.exit_code in older runs); -1 when it did not finish. */
function exitCode(extras: Record<string, unknown>): number | undefined {
  const metadata = isRecord(extras["metadata"]) ? extras["metadata"] : {};
  const code = metadata["exit_code"] ?? extras["exit_code"];
  return typeof code === "number" ? code : undefined;
}

/**
 * One line of OpenHands' evaluation output (`output.jsonl` of run_infer.py: instance_id, instruction,
 * history, test_result.git_patch, metadata, metrics, error, instance) as a rollout. The history's
 * events become turns: the system action and user messages as they are; each agent action as an
 * assistant turn calling the tool its tool_call_metadata names, with the arguments the model sent
 * (the actions of one model response are one turn); each observation as that tool's result, a
 * command's output with the exit-code suffix the model read, an error when its exit code is not 0
 * or the observation is an error. Workspace recall and controller events are kept in `extra.events`.
 * `error` (the controller's, e.g. maximum iteration) is the finish reason, else `finish` when the
 * agent called it. The result joins from the report given, else the row's own `report` (written by
 * OpenHands' update_output_with_eval.py).
 */
export function openHandsRollout(json: unknown, options: OpenHandsOptions): Rollout {
  const { where } = options;
  if (!isRecord(json)) throw new TrajectoryShapeError(`${where}: not a JSON object`);
  const instanceId = json["instance_id"];
  if (typeof instanceId !== "string" || instanceId === "") throw new TrajectoryShapeError(`${where}: instance_id is not a non-empty string`);
  if (!Array.isArray(json["history"])) throw new TrajectoryShapeError(`${where}: history is not a list of events`);

  const turns: Turn[] = [];
  const callNames = new Map<string, string>();
  const skipped: Record<string, unknown>[] = [];
  const responseTokens = new Map<string, number>();
  let lastResponse: string | undefined;
  let finished = false;
  json["history"].forEach((event, index) => {
    const at = `${where} history ${index}`;
    if (!isRecord(event)) throw new TrajectoryShapeError(`${at}: an event is not an object`);
    const action = typeof event["action"] === "string" ? event["action"] : undefined;
    const observation = typeof event["observation"] === "string" ? event["observation"] : undefined;
    if (action === undefined && observation === undefined) throw new TrajectoryShapeError(`${at}: an event is neither an action nor an observation`);
    const args = isRecord(event["args"]) ? event["args"] : {};
    const metadata = isRecord(event["tool_call_metadata"]) ? event["tool_call_metadata"] : undefined;
    const message = typeof event["message"] === "string" ? event["message"] : "";
    if ((action && SKIPPED_ACTIONS.has(action)) || (observation && SKIPPED_OBSERVATIONS.has(observation))) {
      skipped.push({ index, source: event["source"], ...(action ? { action } : { observation }), message });
      return;
    }
    if (action === "system") {
      turns.push({ role: "system", content: typeof args["content"] === "string" ? args["content"] : message });
      return;
    }
    if (action === "message" && !metadata) {
      const content = typeof args["content"] === "string" ? args["content"] : message;
      turns.push({ role: event["source"] === "user" ? "user" : "assistant", content });
      if (event["source"] !== "user") lastResponse = undefined;
      return;
    }
    if (action !== undefined) {
      const fromModel = metadata ? modelCall(metadata) : {};
      const name = metadata && typeof metadata["function_name"] === "string" ? metadata["function_name"] : action;
      const call: ToolCall = {
        ...(metadata && typeof metadata["tool_call_id"] === "string" ? { id: metadata["tool_call_id"] } : {}),
        name,
        arguments: fromModel.arguments ?? unknownFields(args, ACTION_BOOKKEEPING),
      };
      if (call.id !== undefined) callNames.set(call.id, name);
      callNames.set(String(event["id"]), name);
      if (action === "finish") finished = true;
      if (fromModel.responseId !== undefined && fromModel.completionTokens !== undefined) responseTokens.set(fromModel.responseId, fromModel.completionTokens);
      const previous = turns.at(-1);
      if (fromModel.responseId !== undefined && fromModel.responseId === lastResponse && previous?.role === "assistant") {
        previous.toolCalls = [...(previous.toolCalls ?? []), call];
        return;
      }
      lastResponse = fromModel.responseId;
      const thought = typeof args["thought"] === "string" ? args["thought"] : "";
      turns.push({ role: "assistant", content: fromModel.content ?? thought, toolCalls: [call] });
      return;
    }
    const extras = isRecord(event["extras"]) ? event["extras"] : {};
    const callId = metadata && typeof metadata["tool_call_id"] === "string" ? metadata["tool_call_id"] : undefined;
    const toolName = (callId !== undefined ? callNames.get(callId) : undefined) ?? callNames.get(String(event["cause"])) ?? "";
    const code = exitCode(extras);
    const isError = observation === "error" ? true : code !== undefined ? code !== 0 : undefined;
    turns.push({ role: "tool", content: observationText(event, extras), toolName, ...(isError !== undefined ? { isError } : {}) });
  });

  const metrics = isRecord(json["metrics"]) ? json["metrics"] : {};
  const usage = isRecord(metrics["accumulated_token_usage"]) ? metrics["accumulated_token_usage"] : {};
  const completionTokens = typeof usage["completion_tokens"] === "number" ? usage["completion_tokens"] : [...responseTokens.values()].reduce((a, b) => a + b, 0);
  const testResult = isRecord(json["test_result"]) ? json["test_result"] : {};
  const patch = typeof testResult["git_patch"] === "string" ? testResult["git_patch"] : undefined;
  const error = typeof json["error"] === "string" && json["error"] !== "" ? json["error"] : undefined;
  const exitStatus = error ?? (finished ? "finish" : undefined);

  let result = options.report?.get(instanceId);
  for (const inline of [json["report"], testResult["report"]]) {
    if (!result && isRecord(inline)) result = swebenchInstanceResult(inline, `${where} report`);
  }
  // The instruction is the first user message (the prompt): kept only where it differs.
  const prompt = turns.find((t) => t.role === "user")?.content;
  const known = new Set([...TOP_KEYS, "test_result", ...(json["instruction"] === prompt ? ["instruction"] : [])]);
  const restOfTestResult = unknownFields(testResult, new Set(["git_patch", "report"]));
  return agentRollout(
    {
      taskId: instanceId,
      turns,
      ...(patch !== undefined ? { patch } : {}),
      ...(exitStatus !== undefined ? { exitStatus } : {}),
      hitLimit: error !== undefined && LIMIT_ERROR.test(error),
      completionTokens,
      extra: {
        format: "openhands",
        ...unknownFields(json, known),
        ...(Object.keys(restOfTestResult).length > 0 ? { testResult: restOfTestResult } : {}),
        ...(skipped.length > 0 ? { events: skipped } : {}),
      },
    },
    result,
  );
}

// run_infer.py's iterative mode writes attempt n's rows to output.critic_attempt_<n>.jsonl beside
// output.jsonl, then copies each instance's last attempt with a non-empty patch into output.jsonl.
const ATTEMPT_FILE = /^output\.critic_attempt_(\d+)\.jsonl(\.gz)?$/;

/** The attempt an OpenHands output file holds by its name (`output.critic_attempt_2.jsonl`: 2), or undefined for `output.jsonl`. */
export function openHandsAttempt(fileName: string): number | undefined {
  const match = ATTEMPT_FILE.exec(fileName);
  return match ? Number(match[1]) : undefined;
}

/**
 * OpenHands' remote evaluation results (`output.swebench_eval.jsonl` beside `output.jsonl`): one
 * line per instance, `{instance_id, test_result: {report: {resolved, empty_generation, …}}}`.
 */
export function openHandsEvalResults(text: string, file: string): Map<string, SwebenchResult> {
  const results = new Map<string, SwebenchResult>();
  text.split("\n").forEach((line, i) => {
    if (line.trim() === "") return;
    const where = `${file}:${i + 1}`;
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch (error) {
      throw new TrajectoryShapeError(`${where}: not JSON (${(error as Error).message})`);
    }
    const id = isRecord(row) ? row["instance_id"] : undefined;
    const testResult = isRecord(row) && isRecord(row["test_result"]) ? row["test_result"] : undefined;
    if (typeof id !== "string" || !testResult) throw new TrajectoryShapeError(`${where}: an evaluation line has instance_id and test_result.report`);
    results.set(id, swebenchInstanceResult(testResult["report"], `${where} test_result.report`));
  });
  return results;
}
