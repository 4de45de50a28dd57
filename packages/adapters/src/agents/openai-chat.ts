import type { Rollout } from "@evotrainer/contract";
import { agentRollout, isLimitStatus } from "./agent-rollout.ts";
import { openAiTurns } from "./openai-turns.ts";
import { swebenchInstanceResult, type SwebenchResult } from "./swebench-report.ts";
import { isRecord, TrajectoryShapeError, unknownFields } from "./trajectory-error.ts";

const MESSAGE_LISTS = ["messages", "conversation", "chat", "trajectory"] as const;
const ID_KEYS = ["instance_id", "task_id", "id", "uid", "prompt_id"] as const;
const PATCH_KEYS = ["patch", "model_patch", "git_patch"] as const;
const KNOWN = new Set<string>([...MESSAGE_LISTS, ...ID_KEYS, ...PATCH_KEYS, "reward", "score", "resolved", "report", "finish_reason", "stop_reason", "ground_truth"]);

export interface OpenAiChatOptions {
  report?: ReadonlyMap<string, SwebenchResult>;
  /** The row's place (`file:line`): its task id when the row names none. */
  where: string;
}

function firstString(row: Record<string, unknown>, keys: readonly string[]): string | undefined {
  for (const key of keys) {
    const value = row[key];
    if (typeof value === "string" && value !== "") return value;
    if (typeof value === "number") return String(value);
  }
  return undefined;
}

/**
 * One row of OpenAI-style chat messages — a JSON list of messages, or an object holding one under
 * `messages` (or `conversation`, `chat`, `trajectory`) next to the row's own fields — as a rollout.
 * OpenHands, SkyRL, rLLM and verl's multi-turn agent loop write this shape. The row's id
 * (instance_id, task_id, id, uid), patch (patch, model_patch, git_patch, OpenHands'
 * `test_result.git_patch`), reward (reward or score; a joined SWE-bench report wins), `resolved`,
 * finish reason and ground truth are read; every other field is kept in `extra`.
 */
export function openAiChatRollout(json: unknown, options: OpenAiChatOptions): Rollout {
  const { where } = options;
  const row: Record<string, unknown> = Array.isArray(json) ? { messages: json } : isRecord(json) ? json : {};
  const listKey = MESSAGE_LISTS.find((key) => Array.isArray(row[key]));
  if (!listKey) throw new TrajectoryShapeError(`${where}: no list of chat messages (a JSON list, or one under ${MESSAGE_LISTS.join(", ")})`);
  const messages = row[listKey] as unknown[];
  const converted = openAiTurns(messages, where);
  const taskId = firstString(row, ID_KEYS) ?? where;
  const testResult = isRecord(row["test_result"]) ? row["test_result"] : {};
  const patch = firstString(row, PATCH_KEYS) ?? (typeof testResult["git_patch"] === "string" ? testResult["git_patch"] : undefined);
  const finish = firstString(row, ["finish_reason", "stop_reason"]) ?? converted.lastFinishReason;

  let result = options.report?.get(taskId);
  if (!result && isRecord(row["report"])) result = swebenchInstanceResult(row["report"], `${where} report`);
  if (!result && typeof row["resolved"] === "boolean") result = { resolved: row["resolved"], fields: {} };

  const rollout = agentRollout(
    {
      taskId,
      turns: converted.turns,
      ...(patch !== undefined ? { patch } : {}),
      ...(finish !== undefined ? { exitStatus: finish } : {}),
      hitLimit: isLimitStatus(finish),
      completionTokens: converted.completionTokens,
      extra: {
        format: "openai-chat",
        ...unknownFields(row, KNOWN),
        ...(Object.keys(converted.messageFields).length > 0 ? { messageFields: converted.messageFields } : {}),
      },
    },
    result,
  );
  const reward = typeof row["reward"] === "number" ? row["reward"] : typeof row["score"] === "number" ? row["score"] : undefined;
  if (!result && reward !== undefined) rollout.reward = reward;
  if (row["ground_truth"] !== undefined) rollout.groundTruth = row["ground_truth"];
  return rollout;
}
