import type { Rollout } from "@evotrainer/contract";
import { miniSweAgentRollout } from "./mini-swe-agent.ts";
import { openAiChatRollout } from "./openai-chat.ts";
import { openHandsRollout } from "./openhands.ts";
import { sweAgentRollout } from "./swe-agent.ts";
import type { SwebenchResult } from "./swebench-report.ts";

/** The agent trajectory formats `evotrainer import` reads, and the file names each is found under in a directory. */
export const AGENT_FORMATS = {
  "mini-swe-agent": { files: /\.traj\.json$|\.jsonl(\.gz)?$/ },
  "swe-agent": { files: /\.traj$/ },
  // run_infer.py's evaluation output: <output dir>/output.jsonl, one instance per line, and in its
  // iterative mode (ITERATIVE_EVAL_MODE) output.critic_attempt_<n>.jsonl beside it, one per attempt.
  openhands: { files: /^output(\.critic_attempt_\d+)?\.jsonl(\.gz)?$/ },
  "openai-chat": { files: /\.jsonl?(\.gz)?$/ },
} as const;
export type AgentFormat = keyof typeof AGENT_FORMATS;

/** One trajectory (a whole file, or one line of a JSONL file) of a format as a rollout; throws TrajectoryShapeError on a shape it does not know. */
export function agentRolloutOf(
  format: AgentFormat,
  json: unknown,
  options: { where: string; fileStem: string; report?: ReadonlyMap<string, SwebenchResult> },
): Rollout {
  const common = { where: options.where, ...(options.report ? { report: options.report } : {}) };
  if (format === "mini-swe-agent") return miniSweAgentRollout(json, { ...common, instanceId: options.fileStem });
  if (format === "openhands") return openHandsRollout(json, common);
  if (format === "swe-agent") return sweAgentRollout(json, { ...common, instanceId: options.fileStem });
  return openAiChatRollout(json, common);
}
