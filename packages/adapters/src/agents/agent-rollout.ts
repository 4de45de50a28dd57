import type { Rollout, Turn } from "@evotrainer/contract";
import { swebenchJoin, type SwebenchResult } from "./swebench-report.ts";
import { TrajectoryShapeError } from "./trajectory-error.ts";

/** What every agent format gives, already in the contract's terms. */
export interface AgentEpisode {
  /** The task's id (SWE-bench's instance_id): the rollout's task, group and uid. */
  taskId: string;
  /** Every turn of the conversation, system prompt and task included. */
  turns: Turn[];
  /** The agent's final diff, when it submitted one: it goes to `extra.patch`, where the swe detectors read it. */
  patch?: string;
  /** How the episode ended, in the data's own words (exit status, finish reason). */
  exitStatus?: string;
  /** True when the data says a limit ended the episode (step, cost, context or token limit). */
  hitLimit: boolean;
  completionTokens: number;
  /** Fields the rollout has no column for, kept as they are. */
  extra: Record<string, unknown>;
}

// Exit statuses that mean a budget ended the episode, not the agent: mini-swe-agent's LimitsExceeded
// and ContextWindowExceededError, SWE-agent's exit_cost / exit_context, a chat model's "length".
const LIMIT_STATUS = /limitsexceeded|contextwindowexceeded|exit_cost|exit_context|exit_total_execution_time|^length$|max_turns|max_tokens|token_limit/i;

export function isLimitStatus(status: string | undefined): boolean {
  return status !== undefined && LIMIT_STATUS.test(status);
}

/**
 * An agent episode as a contract rollout: the first user message is the prompt, the turns after it
 * the trajectory (the system prompt is kept in `extra.systemPrompt`); a SWE-bench result, when one
 * is joined, sets the reward (1 resolved, 0 not), the test counts and `extra.resolved`.
 */
export function agentRollout(episode: AgentEpisode, result: SwebenchResult | undefined): Rollout {
  const first = episode.turns.findIndex((t) => t.role === "user");
  if (first < 0) throw new TrajectoryShapeError(`${episode.taskId}: no user message holds the task`);
  const trajectory = episode.turns.slice(first + 1);
  if (trajectory.length === 0) throw new TrajectoryShapeError(`${episode.taskId}: the agent never answered the task`);
  const system = episode.turns.slice(0, first).filter((t) => t.role === "system").map((t) => t.content);
  const joined = swebenchJoin(result);
  const assistantTurns = trajectory.filter((t) => t.role === "assistant").length;
  return {
    uid: episode.taskId,
    split: "train",
    step: 0,
    taskId: episode.taskId,
    groupId: episode.taskId,
    sample: 0,
    prompt: episode.turns[first]!.content,
    trajectory,
    reward: joined.reward,
    rewardComponents: joined.reward === null ? {} : { resolved: joined.reward },
    responseTokens: episode.completionTokens,
    turns: Math.max(1, assistantTurns),
    ...(episode.exitStatus !== undefined ? { finishReason: episode.exitStatus } : {}),
    truncated: episode.hitLimit,
    ...(joined.testResults ? { testResults: joined.testResults } : {}),
    extra: {
      ...episode.extra,
      ...(system.length > 0 ? { systemPrompt: system.join("\n") } : {}),
      patch: episode.patch ?? "",
      ...joined.extra,
    },
  };
}
