import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { rolloutSchema, type Rollout } from "@evotrainer/contract";
import { compileHarness, DEFAULT_HEALTH_RULES, SWE_DETECTORS } from "@evotrainer/core";
import { agentRolloutOf } from "./agent-formats.ts";
import { openHandsAttempt, openHandsEvalResults, openHandsRollout } from "./openhands.ts";
import { TrajectoryShapeError } from "./trajectory-error.ts";

const REAL = new URL("../../../../tests/fixtures/real-openhands/", import.meta.url);

function realLines(dir: string): string[] {
  return gunzipSync(readFileSync(new URL(`${dir}/output.jsonl.gz`, REAL))).toString("utf8").trim().split("\n");
}

/** The four real OpenHands rows, as `evotrainer import openhands` reads them. */
function realRollouts(): Rollout[] {
  return ["fastjson2", "multi-swe-bench-examples"].flatMap((dir) => realLines(dir).map((line, i) => agentRolloutOf("openhands", JSON.parse(line), { where: `${dir}:${i + 1}`, fileStem: "output" })));
}

describe("OpenHands output.jsonl", () => {
  it("reads every real row: one assistant turn per model response, the model's own call arguments, command output with its exit-code suffix, the patch", () => {
    const rollouts = realRollouts();
    for (const r of rollouts) expect(rolloutSchema.safeParse(r).success, r.uid).toBe(true);
    expect(rollouts.map((r) => [r.taskId, r.turns, r.trajectory!.length, r.finishReason, r.truncated, r.responseTokens])).toEqual([
      ["alibaba__fastjson2-2775", 20, 39, "finish", false, 14908],
      ["ponylang__ponyc-4595", 23, 45, "finish", false, 2558],
      ["ponylang__ponyc-4593", 33, 66, "finish", false, 5156],
      ["ponylang__ponyc-4588", 49, 99, "RuntimeError: Agent reached maximum iteration in headless mode. Current iteration: 50, max iteration: 50", true, 5627],
    ]);
    const [fastjson2, ponyc4595, ponyc4593] = rollouts as [Rollout, Rollout, Rollout, Rollout];
    expect(fastjson2.prompt).toMatch(/^<uploaded_files>\n\/home\/fastjson2\n/);
    expect(fastjson2.extra!["patch"]).toMatch(/^diff --git a\/core\/src\/main\/java\/com\/alibaba\/fastjson2\/JSON.java/);
    expect(fastjson2.reward).toBeNull();
    // The arguments the model sent (the editor's insert_line), not OpenHands' action record (file_text: null, start, end…).
    expect(fastjson2.trajectory![10]).toMatchObject({ role: "assistant", toolCalls: [{ id: "toolu_06", name: "str_replace_editor", arguments: { command: "insert", insert_line: 1283 } }] });
    expect(Object.keys(fastjson2.trajectory![10]!.toolCalls![0]!.arguments).sort()).toEqual(["command", "insert_line", "new_str", "path"]);
    // exit code 1 (the test script), -1 (timed out after 300 s: the notice is what the model read), 0.
    expect(fastjson2.trajectory![19]).toMatchObject({ role: "tool", toolName: "execute_bash", isError: true });
    expect(fastjson2.trajectory![23]).toMatchObject({ role: "tool", toolName: "execute_bash", isError: true });
    expect(fastjson2.trajectory![23]!.content).toMatch(/\[The command timed out after 300 seconds\./);
    expect(fastjson2.trajectory![1]).toMatchObject({ role: "tool", isError: false });
    expect(fastjson2.trajectory![1]!.content).toMatch(/\[The command completed with exit code 0\.\]$/);
    // Reading and editing files records no exit status.
    expect(fastjson2.trajectory![3]).toEqual(expect.objectContaining({ role: "tool", toolName: "str_replace_editor" }));
    expect(fastjson2.trajectory![3]!.isError).toBeUndefined();
    expect(fastjson2.trajectory!.at(-1)).toMatchObject({ role: "assistant", toolCalls: [{ name: "finish" }] });

    // The system action is the system prompt; workspace recall is kept aside, not a turn.
    expect(ponyc4595.extra!["systemPrompt"]).toMatch(/^You are OpenHands agent/);
    expect(ponyc4595.extra!["events"]).toEqual([
      { index: 2, source: "user", action: "recall", message: expect.stringMatching(/^Retrieving content for/) },
      { index: 3, source: "environment", observation: "recall", message: "Added workspace context" },
    ]);
    expect(ponyc4595.trajectory![0]).toMatchObject({ role: "assistant", content: expect.stringMatching(/^The task involves fixing an issue/), toolCalls: [{ name: "execute_bash", arguments: { command: "ls -l /workspace/ponylang__ponyc__0.1" } }] });
    expect(ponyc4595.trajectory!.filter((t) => t.role === "tool" && t.content.includes("exit code 127"))).toHaveLength(3);
    // A call OpenHands refused before running it (an editor command it does not know) is an error result.
    expect(ponyc4593.trajectory!.find((t) => t.content.startsWith("Parameter 'command' is expected"))).toMatchObject({ role: "tool", isError: true });
    // The instruction is the prompt, so it is not kept twice; the masked api key stays masked.
    for (const r of rollouts) {
      expect(r.extra!["instruction"]).toBeUndefined();
      expect((r.extra!["metadata"] as { llm_config: { api_key: string } }).llm_config.api_key).toBe("**********");
    }
  });

  it("the swe detectors read the real trajectories (hand-checked: see the comments)", () => {
    const compiled = compileHarness({ version: 1, detectors: [...SWE_DETECTORS], healthRules: [...DEFAULT_HEALTH_RULES] });
    if (!compiled.ok) throw new Error(JSON.stringify(compiled.rejections));
    const { labels, errors } = compiled.harness.label(realRollouts(), "swe");
    expect(errors).toEqual([]);
    expect(labels.map((l) => `${l.rolloutUid} ${l.label}`).sort()).toEqual([
      // Right: `sed … && bash /home/run.sh` timed out after 300 s.
      "alibaba__fastjson2-2775 tool_error",
      // Wrong (a false positive of the rule, not of the import): make's "Error: could not load cache"
      // (exit 2, build directory never configured) is read as Python raising after the first edit.
      "ponylang__ponyc-4588 tool_error",
      // Right: edits to match.c, then only failed builds; nothing ever ran the change.
      "ponylang__ponyc-4588 no_test_after_edit",
      // Right: eleven edits of command_parser.pony and no command after them.
      "ponylang__ponyc-4593 no_test_after_edit",
      // Right by the rule's definition: `ponyc` is not on the image's PATH (exit 127).
      "ponylang__ponyc-4595 env_error",
    ].sort());
  });

  it("joins results: the report given, else the row's own report (update_output_with_eval.py), else test_result.report", () => {
    const line = JSON.parse(realLines("multi-swe-bench-examples")[0]!) as Record<string, unknown>;
    const given = openHandsRollout(line, { where: "a:1", report: new Map([["ponylang__ponyc-4595", { resolved: true, fields: {} }]]) });
    expect([given.reward, given.extra!["resolved"]]).toEqual([1, true]);
    const report = { empty_generation: false, resolved: true, failed_apply_patch: false, error_eval: false, test_timeout: false };
    const inline = openHandsRollout({ ...line, report }, { where: "a:1" });
    expect(inline).toMatchObject({ reward: 1, extra: { resolved: true, report: { empty_generation: false, test_timeout: false } } });
    const inTestResult = openHandsRollout({ ...line, test_result: { ...(line["test_result"] as object), report: { ...report, resolved: false } } }, { where: "a:1" });
    expect([inTestResult.reward, inTestResult.extra!["resolved"]]).toEqual([0, false]);
    // The same trajectory with or without a result is the same rollout content.
    expect(inline.trajectory).toEqual(given.trajectory);
  });

  it("reads output.swebench_eval.jsonl; a bad line names its file, line and field", () => {
    const text = `${JSON.stringify({ instance_id: "a__b-1", test_result: { report: { resolved: true, empty_generation: false } } })}\n\n${JSON.stringify({ instance_id: "a__b-2", test_result: { report: { resolved: false } } })}\n`;
    expect([...openHandsEvalResults(text, "out/output.swebench_eval.jsonl")]).toEqual([
      ["a__b-1", { resolved: true, fields: { empty_generation: false } }],
      ["a__b-2", { resolved: false, fields: {} }],
    ]);
    expect(() => openHandsEvalResults(`${text}{"instance_id": "c", "test_result": {"report": {"resolved": "yes"}}}\n`, "e.jsonl")).toThrow(new TrajectoryShapeError('e.jsonl:4 test_result.report: a SWE-bench report entry needs a boolean "resolved"'));
    expect(() => openHandsEvalResults("{\n", "e.jsonl")).toThrow(/^e\.jsonl:1: not JSON/);
  });

  it("joins the calls of one model response into one turn, and refuses rows it cannot read with the field", () => {
    const response = { id: "r1", choices: [{ message: { content: "two at once", tool_calls: [{ id: "c1", function: { name: "execute_bash", arguments: '{"command":"ls"}' } }, { id: "c2", function: { name: "execute_bash", arguments: '{"command":"pwd"}' } }] } }], usage: { completion_tokens: 9 } };
    const meta = (id: string) => ({ function_name: "execute_bash", tool_call_id: id, model_response: response, total_calls_in_response: 2 });
    const r = openHandsRollout(
      {
        instance_id: "x__y-1",
        history: [
          { id: 1, source: "user", action: "message", args: { content: "task" } },
          { id: 2, source: "agent", action: "run", args: { command: "ls", thought: "two at once" }, tool_call_metadata: meta("c1") },
          { id: 3, source: "agent", action: "run", args: { command: "pwd", thought: "" }, tool_call_metadata: meta("c2") },
          { id: 4, source: "agent", observation: "run", cause: 2, content: "a", extras: { metadata: { exit_code: 0 } }, tool_call_metadata: meta("c1") },
          { id: 5, source: "agent", observation: "run", cause: 3, content: "/w", extras: { metadata: { exit_code: 0 } }, tool_call_metadata: meta("c2") },
        ],
        test_result: { git_patch: "" },
      },
      { where: "f:1" },
    );
    expect(r).toMatchObject({ turns: 1, responseTokens: 9, trajectory: [{ role: "assistant", content: "two at once", toolCalls: [{ id: "c1", arguments: { command: "ls" } }, { id: "c2", arguments: { command: "pwd" } }] }, { role: "tool" }, { role: "tool" }] });
    expect(() => openHandsRollout({ history: [] }, { where: "f:2" })).toThrow(new TrajectoryShapeError("f:2: instance_id is not a non-empty string"));
    expect(() => openHandsRollout({ instance_id: "a", history: "x" }, { where: "f:3" })).toThrow(new TrajectoryShapeError("f:3: history is not a list of events"));
    expect(() => openHandsRollout({ instance_id: "a", history: [{ id: 1, source: "user" }] }, { where: "f:4" })).toThrow(new TrajectoryShapeError("f:4 history 0: an event is neither an action nor an observation"));
  });

  it("numbers the attempt files of run_infer.py's iterative mode by their names, and only those", () => {
    expect(["output.critic_attempt_1.jsonl", "output.critic_attempt_3.jsonl.gz", "output.jsonl", "output.critic_attempt_1.swebench_eval.jsonl", "output.swebench_eval.jsonl"].map(openHandsAttempt)).toEqual([1, 3, undefined, undefined, undefined]);
  });
});
