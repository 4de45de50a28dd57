import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { withoutTrailingCommas } from "./trailing-commas.ts";

describe("withoutTrailingCommas", () => {
  it("drops the commas that close an array or object, never one inside a string", () => {
    expect(JSON.parse(withoutTrailingCommas('{"a": [1, 2,\n ],\n "b": {"c": ",]",},}'))).toEqual({ a: [1, 2], b: { c: ",]" } });
    expect(withoutTrailingCommas('["x\\",]", 1]')).toBe('["x\\",]", 1]');
  });

  it("makes CodeR's published results.json readable, and leaves other broken JSON broken", () => {
    const text = readFileSync(new URL("../../../tests/fixtures/real-swebench-v1/coder-lite/results.json", import.meta.url), "utf8");
    expect(() => JSON.parse(text)).toThrow(SyntaxError);
    expect((JSON.parse(withoutTrailingCommas(text)) as { resolved: string[] }).resolved).toHaveLength(82);
    expect(() => JSON.parse(withoutTrailingCommas('{"a": 1 "b": 2}'))).toThrow(SyntaxError);
  });
});
