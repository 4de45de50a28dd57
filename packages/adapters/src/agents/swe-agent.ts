import type { Rollout, ToolCall, Turn } from "@evotrainer/contract";
import { agentRollout, isLimitStatus } from "./agent-rollout.ts";
import { contentText, openAiTurns } from "./openai-turns.ts";
import type { SwebenchResult } from "./swebench-report.ts";
import { isRecord, TrajectoryShapeError, unknownFields } from "./trajectory-error.ts";

const TOP_KEYS = new Set(["history", "info", "trajectory"]);
const INFO_KEYS = new Set(["exit_status", "submission"]);
const MAPPED = new Set(["role", "content", "tool_calls", "tool_call_ids", "action"]);
const STEP_MAPPED = new Set(["action", "observation", "response", "thought"]);

export interface SweAgentOptions {
  /** The instance id, from the file name `<instance_id>.traj` when the trajectory's config does not name it. */
  instanceId?: string;
  report?: ReadonlyMap<string, SwebenchResult>;
  where: string;
}

function problemId(traj: Record<string, unknown>): string | undefined {
  const replay = traj["replay_config"];
  try {
    const config: unknown = typeof replay === "string" ? JSON.parse(replay) : replay;
    const problem = isRecord(config) && isRecord(config["problem_statement"]) ? config["problem_statement"] : undefined;
    return typeof problem?.["id"] === "string" ? problem["id"] : undefined;
  } catch {
    return undefined;
  }
}

/**
 * An action line of SWE-agent's own command language as a call: the command's first word names it
 * (open, edit, create, submit, or a shell program), the whole text is its `command` argument.
 */
function actionCall(action: string): ToolCall {
  const name = /^\s*(\S+)/.exec(action)?.[1] ?? "bash";
  return { name, arguments: { command: action.replace(/\n$/, "") } };
}

/**
 * A SWE-agent trajectory (`<instance_id>.traj`) as a rollout, from its `history` (the chat as sent
 * to the model): demonstrations (`is_demo`) are kept in `extra.demonstrations`, not as the agent's
 * turns; an assistant message's `tool_calls` (function calling) or else its `action` is its call;
 * the observation after it (a `tool` message, or a `user` message in the older text format) is the
 * call's result. `info.submission` is the patch, `info.exit_status` the finish reason (exit_cost and
 * exit_context are limits).
 */
export function sweAgentRollout(json: unknown, options: SweAgentOptions): Rollout {
  const { where } = options;
  if (!isRecord(json) || !Array.isArray(json["history"]) || !isRecord(json["info"])) {
    throw new TrajectoryShapeError(`${where}: a SWE-agent trajectory has a history list and an info object`);
  }
  const info = json["info"];
  const instanceId = problemId(json) ?? options.instanceId;
  if (!instanceId) throw new TrajectoryShapeError(`${where}: no instance id in replay_config or the file name`);

  const demonstrations: string[] = [];
  const messageFields: Record<string, Record<string, unknown>> = {};
  const turns: Turn[] = [];
  let lastCall: string | undefined;
  let seenTask = false;
  let completionTokens = 0;
  json["history"].forEach((message, index) => {
    const at = `${where} history ${index}`;
    if (!isRecord(message)) throw new TrajectoryShapeError(`${at}: not an object`);
    if (message["is_demo"] === true || message["is_demo"] === "True") {
      demonstrations.push(contentText(message["content"], at));
      return;
    }
    const fields = unknownFields(message, MAPPED);
    if (Object.keys(fields).length > 0) messageFields[String(index)] = fields;
    // The chat part (content null, tool_calls, tool names by call id) is OpenAI's.
    const [turn] = openAiTurns([{ role: message["role"], content: message["content"] ?? null, ...(Array.isArray(message["tool_calls"]) ? { tool_calls: message["tool_calls"] } : {}) }], at).turns;
    if (turn!.role === "assistant") {
      if (!turn!.toolCalls && typeof message["action"] === "string" && message["action"].trim() !== "") turn!.toolCalls = [actionCall(message["action"])];
      lastCall = turn!.toolCalls?.at(-1)?.name;
      turns.push(turn!);
      return;
    }
    if (turn!.role === "tool" || (turn!.role === "user" && seenTask && turns.at(-1)?.role === "assistant")) {
      turns.push({ role: "tool", content: turn!.content, toolName: lastCall ?? "" });
      return;
    }
    if (turn!.role === "user") seenTask = true;
    turns.push(turn!);
  });
  const stats = info["model_stats"];
  if (isRecord(stats) && typeof stats["tokens_received"] === "number") completionTokens = stats["tokens_received"];

  const exitStatus = typeof info["exit_status"] === "string" ? info["exit_status"] : undefined;
  const steps = Array.isArray(json["trajectory"]) ? json["trajectory"].map((step) => (isRecord(step) ? unknownFields(step, STEP_MAPPED) : step)) : undefined;
  return agentRollout(
    {
      taskId: instanceId,
      turns,
      ...(typeof info["submission"] === "string" ? { patch: info["submission"] } : {}),
      ...(exitStatus !== undefined ? { exitStatus } : {}),
      hitLimit: isLimitStatus(exitStatus),
      completionTokens,
      extra: {
        format: "swe-agent",
        ...unknownFields(json, TOP_KEYS),
        info: unknownFields(info, INFO_KEYS),
        ...(steps ? { steps } : {}),
        ...(demonstrations.length > 0 ? { demonstrations } : {}),
        ...(Object.keys(messageFields).length > 0 ? { messageFields } : {}),
      },
    },
    options.report?.get(instanceId),
  );
}
