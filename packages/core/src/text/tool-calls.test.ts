import { describe, expect, it } from "vitest";
import { lastCall } from "./tool-calls.ts";

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
