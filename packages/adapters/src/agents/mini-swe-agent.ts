import type { Rollout, Turn } from "@evotrainer/contract";
import { agentRollout, isLimitStatus } from "./agent-rollout.ts";
import { isExitMessage, openAiTurns } from "./openai-turns.ts";
import { swebenchInstanceResult, type SwebenchResult } from "./swebench-report.ts";
import { isRecord, TrajectoryShapeError, unknownFields } from "./trajectory-error.ts";

// mini-swe-agent runs an action only when a response holds exactly one such block (its action_regex).
const BASH_BLOCK = /```bash\s*\n([\s\S]*?)\n```/g;
const RETURNCODE = /^\s*<returncode>(-?\d+)<\/returncode>/;
// Its timeout_template: the command was killed, nothing ran to the end.
const TIMED_OUT = /^\s*The last command <command>[\s\S]*<\/command> timed out and has been killed/;
const FORMATS = new Set(["mini-swe-agent-1", "mini-swe-agent-1.1"]);
const TOP_KEYS = new Set(["info", "messages", "trajectory_format", "instance_id"]);
const INFO_KEYS = new Set(["exit_status", "submission"]);

/**
 * The bash-only agent's turns made explicit: a response's single ```bash block (or v1.1's
 * `extra.actions`) is its call, and an observation — a user message starting `<returncode>`, a
 * timeout notice, or v1.1's message with `extra.returncode` — is the call's result. 2.x's tool-call
 * models already record `tool_calls` and `tool` results, which openAiTurns reads.
 */
function explicitCalls(turns: Turn[], allMessages: readonly unknown[]): Turn[] {
  const messages = allMessages.filter((message) => !isExitMessage(message));
  return turns.map((turn, i) => {
    const message = messages[i];
    const extra = isRecord(message) && isRecord(message["extra"]) ? message["extra"] : {};
    if (turn.role === "assistant" && !turn.toolCalls) {
      const actions = Array.isArray(extra["actions"]) ? extra["actions"].filter(isRecord).map((a) => a["command"]).filter((c): c is string => typeof c === "string") : undefined;
      const commands = actions ?? [...turn.content.matchAll(BASH_BLOCK)].map((m) => m[1]!);
      if (commands.length === 1 || (actions && actions.length > 0)) return { ...turn, toolCalls: commands.map((command) => ({ name: "bash", arguments: { command } })) };
      return turn;
    }
    if (turn.role === "user") {
      const code = RETURNCODE.exec(turn.content);
      if (code) return { role: "tool", content: turn.content, toolName: "bash", isError: Number(code[1]) !== 0 };
      if (typeof extra["returncode"] === "number") return { role: "tool", content: turn.content, toolName: "bash", isError: extra["returncode"] !== 0 };
      if (TIMED_OUT.test(turn.content)) return { role: "tool", content: turn.content, toolName: "bash", isError: true };
    }
    return turn;
  });
}

export interface MiniSweAgentOptions {
  /** The instance id when the file does not hold it (its file name, for `<id>.traj.json`). */
  instanceId?: string;
  /** SWE-bench results by instance id (from `--report`). */
  report?: ReadonlyMap<string, SwebenchResult>;
  /** Where the trajectory was read, for error messages. */
  where: string;
}

/**
 * A mini-swe-agent trajectory (`.traj.json`: trajectory_format mini-swe-agent-1 for 1.x, -1.1 for
 * 1.x's last releases and every 2.x, whose messages end with an `exit` message) as a
 * rollout. Also reads the line shape `{instance_id, traj, report}` that bundles one with its
 * SWE-bench report. `info.submission` is the patch; `info.exit_status` the finish reason.
 */
export function miniSweAgentRollout(json: unknown, options: MiniSweAgentOptions): Rollout {
  const { where } = options;
  if (!isRecord(json)) throw new TrajectoryShapeError(`${where}: not a JSON object`);
  let traj = json;
  let inlineReport: SwebenchResult | undefined;
  let bundleExtra: Record<string, unknown> = {};
  if (isRecord(json["traj"])) {
    traj = json["traj"];
    if (json["report"] !== undefined && json["report"] !== null) inlineReport = swebenchInstanceResult(json["report"], `${where} report`);
    bundleExtra = unknownFields(json, new Set(["traj", "report", "instance_id"]));
  }
  const format = traj["trajectory_format"];
  if (typeof format !== "string" || !FORMATS.has(format)) {
    throw new TrajectoryShapeError(`${where}: trajectory_format ${JSON.stringify(format)} is not mini-swe-agent-1 or mini-swe-agent-1.1`);
  }
  if (!Array.isArray(traj["messages"])) throw new TrajectoryShapeError(`${where}: no messages list`);
  const info = isRecord(traj["info"]) ? traj["info"] : {};
  const instanceId = [json["instance_id"], traj["instance_id"], info["instance_id"], options.instanceId].find((v): v is string => typeof v === "string" && v !== "");
  if (!instanceId) throw new TrajectoryShapeError(`${where}: no instance_id in the trajectory or its file name`);

  const converted = openAiTurns(traj["messages"], where);
  const nonEmpty = (value: unknown) => (typeof value === "string" && value !== "" ? value : undefined);
  const exitStatus = nonEmpty(info["exit_status"]) ?? converted.exit?.status;
  const submission = nonEmpty(info["submission"]) ?? nonEmpty(converted.exit?.fields["submission"]) ?? info["submission"];
  return agentRollout(
    {
      taskId: instanceId,
      turns: explicitCalls(converted.turns, traj["messages"]),
      ...(typeof submission === "string" ? { patch: submission } : {}),
      ...(exitStatus !== undefined ? { exitStatus } : {}),
      hitLimit: isLimitStatus(exitStatus),
      completionTokens: converted.completionTokens,
      extra: {
        format,
        ...bundleExtra,
        ...unknownFields(traj, TOP_KEYS),
        info: unknownFields(info, INFO_KEYS),
        ...(converted.exit && Object.keys(converted.exit.fields).length > 0 ? { exit: converted.exit.fields } : {}),
        ...(Object.keys(converted.messageFields).length > 0 ? { messageFields: converted.messageFields } : {}),
      },
    },
    options.report?.get(instanceId) ?? inlineReport,
  );
}
