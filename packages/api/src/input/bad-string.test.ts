import { describe, expect, it } from "vitest";
import { badString, MAX_INPUT_STRING } from "./bad-string.ts";

describe("badString", () => {
  it("names the field of the first string no field takes, however deep", () => {
    expect(badString({ q: "a\u0000b" })).toBe("q: contains a NUL character, which no field accepts.");
    expect(badString({ a: [{ b: "ok" }, { b: "x\uDC00" }] })).toBe("a.1.b: contains an unpaired surrogate (text that is not valid Unicode).");
    expect(badString({ name: "x".repeat(MAX_INPUT_STRING + 1) })).toMatch(/^name: is 65,537 characters long; the most this field takes is 65,536\.$/);
    expect(badString("\u0000")).toBe("input: contains a NUL character, which no field accepts.");
    expect(badString({ ["k\u0000"]: 1 })).toMatch(/^input: a field name contains a NUL/);
  });

  it("passes valid text: paired surrogates (emoji), long-but-bounded strings, other values", () => {
    expect(badString({ note: "ok 😀 — ünïcode", n: 3, d: new Date(0), list: ["a", null, undefined, 1n] })).toBeNull();
    expect(badString({ name: "x".repeat(MAX_INPUT_STRING) })).toBeNull();
    expect(badString(undefined)).toBeNull();
  });

  it("keeps only a longer bound for raw text fields, and refuses past it", () => {
    const raw = { path: /^lines\.\d+\.text$/, maxLength: 100_000 };
    expect(badString({ lines: [{ text: "a\u0000".repeat(40_000) }] }, raw)).toBeNull();
    expect(badString({ lines: [{ text: "x".repeat(100_001) }] }, raw)).toMatch(/^lines\.0\.text: is 100,001 characters long/);
    expect(badString({ source: "a\u0000", lines: [] }, raw)).toMatch(/^source: contains a NUL/);
  });

  it("walks an input nested deeper than the call stack without overflowing it", () => {
    let deep: unknown = "a\u0000";
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(badString(deep)).toMatch(/^(0\.){99999}0: contains a NUL/);
  });
});
