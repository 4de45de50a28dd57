import { describe, expect, it } from "vitest";
import { ROLLOUT_VARIABLES, rolloutBindings } from "../harness/rollout-variables.ts";
import { caseRollout } from "../harness/detector.ts";
import { answersEqual, finalAnswer } from "../text/final-answer.ts";
import { patchFiles } from "../text/patch-files.ts";
import { celToJson } from "./cel-json.ts";
import { compileRule } from "./compile.ts";
import { helperSignatures } from "./functions.ts";

function evalOn(source: string, rollout: Record<string, unknown>) {
  const r = compileRule(source, { variables: ROLLOUT_VARIABLES });
  if (!r.ok) throw new Error(r.message);
  const out = r.rule.evaluate(rolloutBindings(caseRollout({ name: "x", rollout })));
  if (!out.ok) throw new Error(out.error);
  return celToJson(out.value);
}

describe("CEL helper functions", () => {
  it("returns the evidence span of a regex match", () => {
    expect(evalOn("match_span(response, r'\\\\boxed\\{[^}]*\\}')", { response: "so the answer is \\boxed{42} ok" })).toEqual({
      found: true,
      start: 17,
      end: 27,
      text: "\\boxed{42}",
    });
    expect(evalOn("match_span(response, 'zzz')", { response: "abc" })).toEqual({ found: false, start: -1, end: -1, text: "" });
  });

  it("counts tool calls by name and finds the files a patch touches", () => {
    const trajectory = [
      { role: "assistant", content: "", toolCalls: [{ name: "bash", arguments: { cmd: "ls" } }, { name: "edit", arguments: {} }] },
      { role: "assistant", content: "", toolCalls: [{ name: "bash", arguments: { cmd: "pytest" } }] },
    ];
    expect(evalOn("tool_count(tool_calls, 'bash')", { trajectory })).toBe(2);
    expect(evalOn("last_call(tool_calls, ['pytest', 'unittest'])", { trajectory })).toBe(2);
    expect(evalOn("last_call(tool_calls, ['cargo'])", { trajectory })).toBe(-1);
    const edits = [
      { role: "assistant", content: "", toolCalls: [{ name: "bash", arguments: { cmd: "cd pkg && sed -i s/a/b/ calc.py" } }] },
      { role: "assistant", content: "", toolCalls: [{ name: "bash", arguments: { cmd: "sed -i s/a/b/ scratch.py" } }] },
    ];
    expect(evalOn("last_call_on(tool_calls, ['sed -i'], ['src/pkg/calc.py'])", { trajectory: edits })).toBe(0);
    expect(evalOn("last_call_on(tool_calls, ['sed -i'], ['src/other.py'])", { trajectory: edits })).toBe(-1);
    const patch = "diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-x\n+y\ndiff --git a/new.txt b/new.txt\n--- /dev/null\n+++ b/new.txt\n";
    expect(evalOn("patch_files(patch)", { trajectory, extra: { patch } })).toEqual(["a.py", "new.txt"]);
    expect(evalOn("patch_changed_files(patch)", { trajectory, extra: { patch } })).toEqual(["a.py"]);
    expect(patchFiles("--- a/x\n+++ b/y\n")).toEqual(["x", "y"]);
  });

  it("extracts final answers in the common styles", () => {
    expect(finalAnswer("so \\boxed{\\frac{1}{2}} is it")).toBe("\\frac{1}{2}");
    expect(finalAnswer("work\n#### 1,200")).toBe("1,200");
    expect(finalAnswer("work\nA: 18\n")).toBe("18");
    expect(finalAnswer("Thus the answer is 7.")).toBe("7");
    expect(finalAnswer("no answer here")).toBe("");
    expect(answersEqual("$1,200.", "1200")).toBe(true);
    expect(answersEqual("\\frac{1}{2}", "0.5")).toBe(true);
    expect(answersEqual("12", "13")).toBe(false);
    expect(answersEqual("", "")).toBe(false);
    expect(answersEqual("Yes", "yes")).toBe(true);
  });

  it("documents every helper with its signature", () => {
    expect(helperSignatures()).toContain("final_answer(string) -> string");
    expect(helperSignatures()).toContain("ngram_repeat_ratio(string, int) -> double");
  });
});
