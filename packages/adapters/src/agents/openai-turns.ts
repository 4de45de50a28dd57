import type { ToolCall, Turn } from "@evotrainer/contract";
import { isRecord, TrajectoryShapeError, unknownFields } from "./trajectory-error.ts";

/** Chat turns in the contract's shape, and every message field the contract's turn has no place for. */
export interface ConvertedTurns {
  turns: Turn[];
  /** Per turn index, the message's fields the turn cannot hold (provider responses, reasoning, usage…). */
  messageFields: Record<string, Record<string, unknown>>;
  /** Completion tokens reported by the provider's usage, summed over assistant messages (0 when none reports it). */
  completionTokens: number;
  /** The last assistant message's own finish reason, when the data records one. */
  lastFinishReason?: string;
  /** mini-swe-agent 2.x's closing `exit` message: how the run ended and what it submitted. */
  exit?: AgentExit;
}

/** An `exit` message's record of the end: its `extra.exit_status`, its content, and its other fields (traceback…). */
export interface AgentExit {
  status?: string;
  content: string;
  fields: Record<string, unknown>;
}

/**
 * mini-swe-agent 2.x ends every trajectory with a message of role `exit` (its agent's Submitted,
 * LimitsExceeded, TimeExceeded or an uncaught exception): a record of how the run ended, not a turn
 * of the conversation, so it is read as the episode's end and left out of the turns.
 */
export const isExitMessage = (message: unknown): boolean => isRecord(message) && message["role"] === "exit";

const MESSAGE_KEYS = new Set(["role", "content", "tool_calls", "tool_call_id", "name"]);
const ROLES = new Set(["system", "user", "assistant", "tool"]);

/**
 * Text of a message's content: a string, null (an assistant message that only calls tools), or
 * OpenAI's list of parts, whose text parts are joined and whose other parts are named.
 */
export function contentText(content: unknown, where: string): string {
  if (content === null || content === undefined) return "";
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((part) => {
        if (typeof part === "string") return part;
        if (isRecord(part) && typeof part["text"] === "string") return part["text"];
        if (isRecord(part) && typeof part["type"] === "string") return `[${part["type"]}]`;
        throw new TrajectoryShapeError(`${where}: a content part is neither text nor a typed part`);
      })
      .join("\n");
  }
  throw new TrajectoryShapeError(`${where}: content is ${typeof content}, not a string, null or a list of parts`);
}

/** A call's arguments: OpenAI sends them as a JSON string; one that does not parse is kept whole under `raw`. */
function callArguments(value: unknown): Record<string, unknown> {
  if (isRecord(value)) return value;
  if (typeof value === "string") {
    try {
      const parsed: unknown = JSON.parse(value);
      return isRecord(parsed) ? parsed : { value: parsed };
    } catch {
      return { raw: value };
    }
  }
  return value === undefined || value === null ? {} : { value };
}

function toolCallOf(call: unknown, where: string): ToolCall {
  if (!isRecord(call)) throw new TrajectoryShapeError(`${where}: a tool call is not an object`);
  const fn = isRecord(call["function"]) ? call["function"] : call;
  const name = fn["name"];
  if (typeof name !== "string" || name === "") throw new TrajectoryShapeError(`${where}: a tool call has no function name`);
  return { ...(typeof call["id"] === "string" ? { id: call["id"] } : {}), name, arguments: callArguments(fn["arguments"]) };
}

function usageTokens(message: Record<string, unknown>): number {
  const extra = isRecord(message["extra"]) ? message["extra"] : {};
  const response = isRecord(extra["response"]) ? extra["response"] : {};
  for (const usage of [message["usage"], response["usage"]]) {
    if (!isRecord(usage)) continue;
    const tokens = usage["completion_tokens"] ?? usage["output_tokens"];
    if (typeof tokens === "number" && Number.isFinite(tokens) && tokens >= 0) return tokens;
  }
  return 0;
}

function finishReasonOf(message: Record<string, unknown>): string | undefined {
  if (typeof message["finish_reason"] === "string") return message["finish_reason"];
  const extra = isRecord(message["extra"]) ? message["extra"] : {};
  const response = isRecord(extra["response"]) ? extra["response"] : {};
  const choice = Array.isArray(response["choices"]) && isRecord(response["choices"][0]) ? response["choices"][0] : undefined;
  return typeof choice?.["finish_reason"] === "string" ? choice["finish_reason"] : undefined;
}

/**
 * OpenAI chat messages (as OpenHands, SkyRL, rLLM, verl's multi-turn agent loop and mini-swe-agent
 * v2 write them) as contract turns: `content: null` is an empty turn, `tool_calls` become the turn's
 * calls with parsed arguments, a `tool` message names the tool its `tool_call_id` answered. The
 * Responses API's `function_call` / `function_call_output` items are read the same way.
 * `isError` is what the data says about a result (`extra.returncode` ≠ 0); detectors decide what
 * counts as an error worth a label from the text.
 */
export function openAiTurns(messages: readonly unknown[], where: string): ConvertedTurns {
  const turns: Turn[] = [];
  const messageFields: Record<string, Record<string, unknown>> = {};
  const callNames = new Map<string, string>();
  let completionTokens = 0;
  let lastFinishReason: string | undefined;
  let exit: AgentExit | undefined;
  messages.forEach((message, index) => {
    const at = `${where} message ${index}`;
    if (!isRecord(message)) throw new TrajectoryShapeError(`${at}: not an object`);
    if (isExitMessage(message)) {
      const { exit_status: status, ...fields } = isRecord(message["extra"]) ? message["extra"] : {};
      exit = { ...(typeof status === "string" ? { status } : {}), content: contentText(message["content"], at), fields };
      return;
    }
    let turn: Turn;
    let known = MESSAGE_KEYS;
    if (message["type"] === "function_call_output") {
      const callId = typeof message["call_id"] === "string" ? message["call_id"] : "";
      turn = { role: "tool", content: contentText(message["output"], at), toolName: callNames.get(callId) ?? "" };
      known = new Set(["type", "call_id", "output"]);
    } else if (message["object"] === "response" && Array.isArray(message["output"])) {
      const texts: string[] = [];
      const toolCalls: ToolCall[] = [];
      for (const item of message["output"]) {
        if (!isRecord(item)) continue;
        if (item["type"] === "function_call") {
          const call = toolCallOf({ id: item["call_id"], function: item }, at);
          toolCalls.push(call);
        } else if (item["type"] === "message") texts.push(contentText(item["content"], at));
      }
      turn = { role: "assistant", content: texts.join("\n"), ...(toolCalls.length > 0 ? { toolCalls } : {}) };
      known = new Set(["object"]);
    } else {
      const role = message["role"];
      if (typeof role !== "string" || !ROLES.has(role)) throw new TrajectoryShapeError(`${at}: role ${JSON.stringify(role)} is not system, user, assistant, tool or exit`);
      turn = { role: role as Turn["role"], content: contentText(message["content"], at) };
      if (Array.isArray(message["tool_calls"]) && message["tool_calls"].length > 0) {
        turn.toolCalls = message["tool_calls"].map((call) => toolCallOf(call, at));
      }
      if (role === "tool") {
        const callId = typeof message["tool_call_id"] === "string" ? message["tool_call_id"] : undefined;
        const name = typeof message["name"] === "string" ? message["name"] : callId !== undefined ? callNames.get(callId) : undefined;
        turn.toolName = name ?? "";
      }
    }
    for (const call of turn.toolCalls ?? []) if (call.id !== undefined) callNames.set(call.id, call.name);
    const extra = isRecord(message["extra"]) ? message["extra"] : undefined;
    if (turn.role === "tool" && typeof extra?.["returncode"] === "number") turn.isError = extra["returncode"] !== 0;
    if (turn.role === "assistant") {
      completionTokens += usageTokens(message);
      lastFinishReason = finishReasonOf(message) ?? lastFinishReason;
    }
    const rest = unknownFields(message, known);
    if (Object.keys(rest).length > 0) messageFields[String(turns.length)] = rest;
    turns.push(turn);
  });
  return { turns, messageFields, completionTokens, ...(lastFinishReason !== undefined ? { lastFinishReason } : {}), ...(exit ? { exit } : {}) };
}
