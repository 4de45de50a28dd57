import { describe, expect, it } from "vitest";
import { rolloutSchema } from "@evotrainer/contract";
import { miniSweAgentRollout } from "./mini-swe-agent.ts";
import { openAiChatRollout } from "./openai-chat.ts";

// Messages as mini-swe-agent 2.4.6 writes them (SWE-agent/mini-swe-agent at a83fcae8):
// agents/default.py (the `exit` messages, serialize()), models/utils/actions_toolcall.py (tool
// results, the padding of actions not executed, FormatError) and models/utils/actions_text.py
// (the text-based model's `extra.actions` and observation messages).
const SYSTEM = { role: "system", content: "You are a helpful assistant that can interact with a computer." };
const TASK = { role: "user", content: "Please solve this issue: SyntaxError: invalid syntax" };

function trajectory(messages: unknown[], info: Record<string, unknown> = {}) {
  const last = messages[messages.length - 1] as { extra?: Record<string, unknown> };
  return {
    info: {
      model_stats: { instance_cost: 0.02, api_calls: 3 },
      config: { agent_type: "minisweagent.agents.default.DefaultAgent", model_type: "minisweagent.models.litellm_model.LitellmModel" },
      mini_version: "2.4.6",
      exit_status: last.extra?.["exit_status"] ?? "",
      submission: last.extra?.["submission"] ?? "",
      ...info,
    },
    messages: [SYSTEM, TASK, ...messages],
    trajectory_format: "mini-swe-agent-1.1",
  };
}

const toolCall = (id: string, command: string) => ({
  role: "assistant",
  content: "THOUGHT: look first",
  tool_calls: [{ id, type: "function", function: { name: "bash", arguments: JSON.stringify({ command }) } }],
  extra: { actions: [{ command, tool_call_id: id }], cost: 0.01, timestamp: 1764747737.7 },
});
const toolResult = (id: string, output: string, returncode: number, exception_info = "") => ({
  content: `<returncode>${returncode}</returncode>\n<output>\n${output}</output>`,
  extra: { raw_output: output, returncode, timestamp: 1764747738.1, exception_info },
  tool_call_id: id,
  role: "tool",
});

describe("mini-swe-agent 2.x trajectories", () => {
  it("a tool-call run: calls and results by id, return codes as errors, a format error kept as a user turn, the exit message as the end", () => {
    const patch = "diff --git a/missing_colon.py b/missing_colon.py\n-def division(a, b)\n+def division(a, b):\n";
    const json = trajectory([
      toolCall("call_1", "cat missing_colon.py"),
      toolResult("call_1", "def division(a, b)\n", 0),
      { role: "assistant", content: "I will edit it.", extra: { cost: 0.01 } },
      { role: "user", content: "No tool calls found in the response. Every response MUST include at least one tool call.", extra: { interrupt_type: "FormatError" } },
      toolCall("call_2", "python missing_colon.py"),
      toolResult("call_2", "SyntaxError: invalid syntax\n", 1),
      toolCall("call_3", "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git diff"),
      { role: "exit", content: patch, extra: { exit_status: "Submitted", submission: patch } },
    ]);
    const r = miniSweAgentRollout(json, { where: "x.traj.json", instanceId: "swe-agent-test-repo-1" });
    expect(rolloutSchema.safeParse(r).success).toBe(true);
    expect(r.taskId).toBe("swe-agent-test-repo-1");
    expect(r.finishReason).toBe("Submitted");
    expect(r.truncated).toBe(false);
    expect(r.extra!["patch"]).toBe(patch);
    expect(r.trajectory!.map((t) => t.role)).toEqual(["assistant", "tool", "assistant", "user", "assistant", "tool", "assistant"]);
    expect(r.trajectory![0]).toMatchObject({ toolCalls: [{ id: "call_1", name: "bash", arguments: { command: "cat missing_colon.py" } }] });
    expect(r.trajectory![1]).toMatchObject({ role: "tool", toolName: "bash", isError: false });
    expect(r.trajectory![5]).toMatchObject({ role: "tool", toolName: "bash", isError: true });
    // The fields the turns have no place for stay with their turn, indexed like the turns (system prompt and task included).
    const fields = r.extra!["messageFields"] as Record<string, { extra?: Record<string, unknown> }>;
    expect(fields["5"]!.extra).toMatchObject({ interrupt_type: "FormatError" });
  });

  it("a limit ends the run: exit_status LimitsExceeded is a truncated rollout with no patch", () => {
    const r = miniSweAgentRollout(
      trajectory([toolCall("a", "ls"), toolResult("a", "src\n", 0), { role: "exit", content: "LimitsExceeded", extra: { exit_status: "LimitsExceeded", submission: "" } }]),
      { where: "y.traj.json", instanceId: "t" },
    );
    expect(r.finishReason).toBe("LimitsExceeded");
    expect(r.truncated).toBe(true);
    expect(r.extra!["patch"]).toBe("");
  });

  it("an uncaught exception's exit keeps its traceback; an action not executed reads as failed", () => {
    const r = miniSweAgentRollout(
      trajectory([
        { ...toolCall("a", "ls"), tool_calls: [...toolCall("a", "ls").tool_calls, { id: "b", type: "function", function: { name: "bash", arguments: '{"command":"pwd"}' } }] },
        toolResult("a", "", -1, "An error occurred while executing the command: timed out"),
        toolResult("b", "", -1, "action was not executed"),
        { role: "exit", content: "boom", extra: { exit_status: "RuntimeError", submission: "", exception_str: "boom", traceback: "Traceback (most recent call last): …" } },
      ]),
      { where: "z.traj.json", instanceId: "t" },
    );
    expect(r.finishReason).toBe("RuntimeError");
    expect(r.trajectory!.filter((t) => t.role === "tool").map((t) => t.isError)).toEqual([true, true]);
    expect(r.extra!["exit"]).toMatchObject({ exception_str: "boom", traceback: expect.stringContaining("Traceback") });
  });

  it("a text-based run: the mswea_bash_command block is the call (extra.actions), user observations with a return code are its results", () => {
    const r = miniSweAgentRollout(
      trajectory([
        { role: "assistant", content: "THOUGHT: run it\n\n```mswea_bash_command\npython -m pytest -x tests\n```", extra: { actions: [{ command: "python -m pytest -x tests" }] } },
        { role: "user", content: "<returncode>0</returncode>\n<output>\n1 passed\n</output>", extra: { raw_output: "1 passed\n", returncode: 0, exception_info: null } },
        { role: "exit", content: "", extra: { exit_status: "Submitted", submission: "" } },
      ]),
      { where: "t.traj.json", instanceId: "t" },
    );
    expect(r.trajectory![0]).toMatchObject({ toolCalls: [{ name: "bash", arguments: { command: "python -m pytest -x tests" } }] });
    expect(r.trajectory![1]).toMatchObject({ role: "tool", isError: false });
    expect(r.finishReason).toBe("Submitted");
  });

  it("import openai-chat reads a 2.x file's messages too: the exit message is no turn", () => {
    const json = trajectory([toolCall("a", "ls"), toolResult("a", "src\n", 0), { role: "exit", content: "", extra: { exit_status: "Submitted", submission: "" } }]);
    const r = openAiChatRollout({ instance_id: "t", messages: json.messages }, { where: "chat.jsonl:1" });
    expect(r.trajectory!.map((t) => t.role)).toEqual(["assistant", "tool"]);
  });
});
