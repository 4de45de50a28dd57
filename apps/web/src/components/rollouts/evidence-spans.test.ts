import { describe, expect, it } from "vitest";
import { evidenceSpans, pieces } from "./evidence-spans";
import { evidenceSummary } from "./evidence-summary";

describe("evidence spans", () => {
  it("uses a match_span's offsets when its text agrees, and finds value evidence by its text", () => {
    const text = "abc loop loop loop def";
    const spans = evidenceSpans(text, [
      { label: "repetition_loop", evidence: { found: true, start: 4, end: 18, text: "loop loop loop" } },
      { label: "tail", evidence: { tail: "def" } },
      { label: "truncated", evidence: { finish_reason: "length" } },
    ]);
    expect(spans).toEqual([{ start: 4, end: 18, label: "repetition_loop" }]);
    expect(pieces(text, spans)).toEqual([
      { text: "abc ", label: null },
      { text: "loop loop loop", label: "repetition_loop" },
      { text: " def", label: null },
    ]);
  });

  it("ignores offsets that point elsewhere and merges overlapping spans", () => {
    const text = "the answer is 42, the answer is 42";
    const spans = evidenceSpans(text, [
      { label: "a", evidence: { start: 0, end: 5, text: "wrong" } },
      { label: "b", evidence: { tail: "answer is 42" } },
      { label: "c", evidence: { start: 4, end: 16 } },
    ]);
    expect(pieces(text, spans).filter((p) => p.label)).toEqual([{ text: "answer is 42", label: "b" }]);
  });
});

describe("evidence summary", () => {
  it("reads as words: a quote for a matched span, key: value otherwise, long quotes cut from the front", () => {
    expect(evidenceSummary({ found: true, start: 4, end: 18, text: "loop loop loop" })).toBe("“loop loop loop”");
    expect(evidenceSummary({ files: ["tests/test_a.py"], calls: [] })).toBe("files: tests/test_a.py · calls: none");
    expect(evidenceSummary({ tool_calls: 12, finish_reason: "length" })).toBe("tool calls: 12 · finish reason: length");
    expect(evidenceSummary({ tail: "x".repeat(200) })).toBe(`tail: …${"x".repeat(120)}`);
    expect(evidenceSummary({ last_edit: { name: "bash", step: 3 } })).toBe("last edit: (name bash, step 3)");
  });
});
