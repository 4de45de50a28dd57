import { describe, expect, it } from "vitest";
import { caseRollout } from "./detector.ts";
import { ROLLOUT_VARIABLES, rolloutBindings } from "./rollout-variables.ts";

describe("rollout bindings", () => {
  it("bind every declared variable, and nothing else a rule could name", () => {
    const b = rolloutBindings(caseRollout({ name: "x", rollout: { response: "A: 1", groundTruth: { a: 1 }, testResults: { passed: 1, total: 2 }, extra: { patch: "diff" } } }));
    for (const name of Object.keys(ROLLOUT_VARIABLES)) expect(b[name], name).not.toBeUndefined();
    const getters = Object.entries(Object.getOwnPropertyDescriptors(Object.getPrototypeOf(b))).filter(([, d]) => d.get).map(([k]) => k);
    expect(getters.sort()).toEqual(Object.keys(ROLLOUT_VARIABLES).sort());
  });

  it("compute a derived variable once and give the same value on every read", () => {
    const b = rolloutBindings(caseRollout({ name: "x", rollout: { trajectory: [{ role: "assistant", content: "a", toolCalls: [{ name: "bash", arguments: { cmd: "ls" } }] }, { role: "assistant", content: "b" }] } }));
    expect(b.response).toBe("a\nb");
    expect(b.tool_calls).toBe(b.tool_calls);
    expect(b.tool_text).toBe('bash {"cmd":"ls"}');
  });

  it("place each tool result after the call it answers", () => {
    const b = rolloutBindings(
      caseRollout({
        name: "x",
        rollout: {
          trajectory: [
            { role: "tool", content: "banner" },
            { role: "assistant", content: "", toolCalls: [{ name: "bash", arguments: { cmd: "ls" } }, { name: "bash", arguments: { cmd: "pwd" } }] },
            { role: "tool", content: "a", isError: false },
            { role: "assistant", content: "", toolCalls: [{ name: "bash", arguments: { cmd: "x" } }] },
            { role: "tool", content: "b", isError: true },
          ],
        },
      }),
    );
    expect((b.tool_results as { call: bigint }[]).map((r) => r.call)).toEqual([-1n, 1n, 2n]);
  });
});
