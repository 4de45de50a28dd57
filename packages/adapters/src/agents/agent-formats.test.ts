import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { rolloutSchema } from "@evotrainer/contract";
import { miniSweAgentRollout } from "./mini-swe-agent.ts";
import { openAiChatRollout } from "./openai-chat.ts";
import { sweAgentRollout } from "./swe-agent.ts";
import { parseSwebenchReport } from "./swebench-report.ts";
import { TrajectoryShapeError } from "./trajectory-error.ts";

const REAL = new URL("../../../../tests/fixtures/real/", import.meta.url);

describe("agent trajectory formats", () => {
  it("reads every real mini-swe-agent v1 trajectory: bash blocks as calls, observations as results, submission as patch, the report joined", () => {
    const lines = gunzipSync(readFileSync(new URL("mini-swe-agent-gemini-3-pro-dev150.jsonl.gz", REAL))).toString("utf8").trim().split("\n");
    const rollouts = lines.map((line, i) => miniSweAgentRollout(JSON.parse(line), { where: `line ${i + 1}` }));
    for (const r of rollouts) expect(rolloutSchema.safeParse(r).success, r.uid).toBe(true);
    expect(rollouts.filter((r) => r.reward === 1)).toHaveLength(114);
    const first = rollouts[0]!;
    expect(first.trajectory![0]).toMatchObject({ role: "assistant", toolCalls: [{ name: "bash", arguments: { command: "find . -name sky_coordinate.py" } }] });
    expect(first.trajectory![1]).toMatchObject({ role: "tool", toolName: "bash", isError: false });
    expect(first.testResults).toEqual({ passed: 427, total: 427, status: "resolved" });
    // Nothing is dropped: the provider's raw responses stay with their message.
    expect((first.extra!["messageFields"] as Record<string, { extra: unknown }>)["2"]!.extra).toMatchObject({ response: { provider: "Google" } });
  });

  it("reads mini-swe-agent v1.1 with tool calls, content: null, tool results with a return code, and Responses API items", () => {
    const r = miniSweAgentRollout(
      {
        trajectory_format: "mini-swe-agent-1.1",
        info: { exit_status: "LimitsExceeded", submission: "", mini_version: "2.2.8" },
        messages: [
          { role: "system", content: "system" },
          { role: "user", content: "task" },
          { role: "assistant", content: null, tool_calls: [{ id: "a", function: { name: "bash", arguments: '{"command": "ls"}' } }], extra: { response: { usage: { completion_tokens: 7 } } } },
          { role: "tool", tool_call_id: "a", content: "bash: foo: command not found", extra: { returncode: 127 } },
          { object: "response", output: [{ type: "message", content: [{ type: "output_text", text: "next" }] }, { type: "function_call", call_id: "b", name: "bash", arguments: '{"command":"pwd"}' }], usage: { output_tokens: 3 } },
          { type: "function_call_output", call_id: "b", output: "/app", extra: { returncode: 0 } },
        ],
      },
      { where: "t", instanceId: "x__y-1" },
    );
    expect(r).toMatchObject({ uid: "x__y-1", prompt: "task", finishReason: "LimitsExceeded", truncated: true, responseTokens: 10, turns: 2, extra: { patch: "", info: { mini_version: "2.2.8" } } });
    expect(r.trajectory).toEqual([
      { role: "assistant", content: "", toolCalls: [{ id: "a", name: "bash", arguments: { command: "ls" } }] },
      { role: "tool", content: "bash: foo: command not found", toolName: "bash", isError: true },
      { role: "assistant", content: "next", toolCalls: [{ id: "b", name: "bash", arguments: { command: "pwd" } }] },
      { role: "tool", content: "/app", toolName: "bash", isError: false },
    ]);
  });

  it("refuses shapes it does not know with a reason", () => {
    expect(() => miniSweAgentRollout({ trajectory_format: "other", messages: [] }, { where: "f:3" })).toThrow(new TrajectoryShapeError('f:3: trajectory_format "other" is not mini-swe-agent-1 or mini-swe-agent-1.1'));
    expect(() => openAiChatRollout({ messages: [{ role: "robot", content: "x" }] }, { where: "f:1" })).toThrow(/role "robot"/);
    expect(() => sweAgentRollout({ trajectory: [] }, { where: "f:1" })).toThrow(TrajectoryShapeError);
  });

  it("reads real SWE-agent trajectories in the text and the function-calling format, demonstrations apart", () => {
    const read = (name: string) => sweAgentRollout(JSON.parse(readFileSync(new URL(`swe-agent/${name}.traj`, REAL), "utf8")), { where: name, instanceId: name });
    const text = read("pydicom__pydicom-1458");
    expect(rolloutSchema.safeParse(text).success).toBe(true);
    expect(text.trajectory![0]).toMatchObject({ role: "assistant", toolCalls: [{ name: "create", arguments: { command: "create reproduce_bug.py" } }] });
    expect(text.trajectory![1]).toMatchObject({ role: "tool", toolName: "create" });
    expect(text.extra!["demonstrations"]).toHaveLength(1);
    expect(text.extra!["patch"]).toContain("diff --git a/pydicom/pixel_data_handlers/numpy_handler.py");
    const calls = read("marshmallow-code__marshmallow-1867");
    expect(calls.trajectory![0]).toMatchObject({ role: "assistant", toolCalls: [{ name: "create", arguments: { filename: "reproduce.py" } }] });
    expect(calls.trajectory![1]).toMatchObject({ role: "tool", toolName: "create" });
  });

  it("reads both SWE-bench report shapes", () => {
    const perInstance = parseSwebenchReport({ "a__b-1": { resolved: false, patch_exists: true, tests_status: { FAIL_TO_PASS: { success: [], failure: ["t1"] }, PASS_TO_PASS: { success: ["t2"], failure: [] } } } }, "r");
    expect(perInstance.get("a__b-1")).toEqual({ resolved: false, fields: { patch_exists: true }, testsStatus: { FAIL_TO_PASS: { success: [], failure: ["t1"] }, PASS_TO_PASS: { success: ["t2"], failure: [] } } });
    const summary = parseSwebenchReport({ total_instances: 3, resolved_ids: ["a"], unresolved_ids: ["b"], empty_patch_ids: ["c"] }, "r");
    expect([...summary].map(([id, r]) => [id, r.resolved])).toEqual([["a", true], ["b", false], ["c", false]]);
  });
});
