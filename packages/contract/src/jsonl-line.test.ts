import { describe, expect, it } from "vitest";
import { parseJsonlLine } from "./jsonl-line.ts";
import { metricsLineSchema } from "./metrics.ts";
import { rolloutSchema } from "./rollout.ts";
import { validRollout } from "./test-fixtures.ts";

describe("parseJsonlLine", () => {
  it("returns the validated value, defaults filled in", () => {
    const result = parseJsonlLine(JSON.stringify(validRollout()), rolloutSchema);
    expect(result).toEqual({ ok: true, value: rolloutSchema.parse(validRollout()) });
    expect(result.ok && result.value.turns).toBe(1);
  });

  it("names the JSON syntax error", () => {
    const result = parseJsonlLine('{"step": 1, "data": {', metricsLineSchema);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.reason).toMatch(/^invalid JSON: /);
  });

  it("names every invalid field by its path", () => {
    const { taskId: _taskId, ...row } = validRollout({
      reward: "1" as unknown as number,
      testResults: { passed: -1, total: 3 },
    });
    const result = parseJsonlLine(JSON.stringify(row), rolloutSchema);
    expect(result.ok).toBe(false);
    const reason = result.ok ? "" : result.reason;
    expect(reason).toContain("taskId: missing: add this field (expected string)");
    expect(reason).toContain("reward: Invalid input: expected number, received string");
    expect(reason).toContain("testResults.passed: ");
    expect(reason.split("; ")).toHaveLength(3);
  });

  it("reports a value that is not an object at the root", () => {
    const result = parseJsonlLine("42", metricsLineSchema);
    expect(result).toEqual({ ok: false, reason: expect.stringMatching(/^\(root\): .*expected object/) });
  });
});
