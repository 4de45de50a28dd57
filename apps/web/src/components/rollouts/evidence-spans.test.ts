import { describe, expect, it } from "vitest";
import { evidenceSpans, pieces } from "./evidence-spans";

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
