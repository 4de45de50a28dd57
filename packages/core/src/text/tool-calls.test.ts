import { describe, expect, it } from "vitest";
import { firstCall, lastCall } from "./tool-calls.ts";

describe("lastCall", () => {
  const calls = [
    { name: "bash", args: '{"cmd":"cat src/x.py"}' },
    { name: "str_replace_editor", args: '{"command":"str_replace","path":"/repo/src/x.py"}' },
    { name: "bash", args: '{"cmd":"python -c \\"print(1+1)\\" && f.write(x)"}' },
  ];

  it("matches its needles as plain substrings, regex characters included", () => {
    expect(lastCall(calls, [".write("])).toBe(2);
    expect(lastCall(calls, ["print(1+1)"])).toBe(2);
    expect(lastCall(calls, ['"command":"str_replace"'])).toBe(1);
    // As patterns these would match; as substrings they do not.
    expect(lastCall(calls, ["cat.src", "x*py", "c[a]t", "(bash)|(cat)"])).toBe(-1);
    expect(lastCall(calls, [])).toBe(-1);
  });

  it("with files, takes only calls that name one of them by base name", () => {
    expect(lastCall(calls, ["str_replace", "cat "], ["src/x.py"])).toBe(1);
    expect(lastCall(calls, ["cat "], ["lib/y.py"])).toBe(-1);
  });
});

describe("firstCall and SWE-agent's edit N:M", () => {
  const EDITS = ['"command":"edit ', "sed -i"];
  const calls = [
    { name: "open", args: '{"command":"open src/calc.py 10"}' },
    { name: "edit", args: '{"command":"edit 10:12\\nreturn a + b\\nend_of_edit"}' },
    { name: "create", args: '{"command":"create repro.py"}' },
    { name: "edit", args: '{"command":"edit 1:1\\nprint(add(1, 2))\\nend_of_edit"}' },
    { name: "bash", args: '{"command":"sed -i s/a/b/ src/calc.py"}' },
  ];

  it("takes the file the last open or create opened as the one an edit names", () => {
    expect(firstCall(calls, EDITS, ["src/calc.py"])).toBe(1);
    expect(lastCall(calls.slice(0, 4), EDITS, ["src/calc.py"])).toBe(1);
    expect(lastCall(calls, EDITS, ["src/calc.py"])).toBe(4);
    expect(firstCall(calls, EDITS, ["repro.py"])).toBe(3);
    expect(firstCall(calls, EDITS, ["other.py"])).toBe(-1);
  });
});
