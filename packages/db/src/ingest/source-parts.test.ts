import { describe, expect, it } from "vitest";
import { HEAD_BYTES } from "./file-cursor.ts";
import { sourceParts, type TextSource } from "./ingest-texts.ts";

// Lines as a caller builds them from pieces: a head, then turns; one longer than the hashed head,
// one with non-ASCII text, one with a \u escape.
const pieceLists = [
  ['{"uid":"a","trajectory":', "[", JSON.stringify({ content: "x".repeat(HEAD_BYTES * 2) }), "]", "}"],
  ['{"uid":"b","trajectory":', "[", JSON.stringify({ content: "héllo 数 😀" }), ",", JSON.stringify({ content: "é".repeat(3000) }), "]", "}"],
  ['{"uid":"c","trajectory":', "[", JSON.stringify({ content: "nul \u0000 here" }), "]", "}"],
];
const lines = pieceLists.map((pieces) => pieces.join(""));
const values = lines.map((line) => JSON.parse(line) as unknown);

describe("sourceParts of lines given as pieces", () => {
  it("cuts, measures and hashes them as it does the joined lines, and knows which hold an escape without reading them", () => {
    const plain: TextSource = { source: "s", lines, values, unreadable: [] };
    const pieced: TextSource = { ...plain, pieces: pieceLists };
    for (const limit of [1, 5_000, 1_000_000]) {
      const a = sourceParts(plain, undefined, limit);
      const b = sourceParts(pieced, undefined, limit);
      expect(b.size).toBe(a.size);
      expect(b.parts.map((p) => [p.from, p.next])).toEqual(a.parts.map((p) => [p.from, p.next]));
      // Resumed from each cursor, both agree the text is the same one.
      for (const { next } of a.parts) expect(sourceParts(pieced, next, limit).rewritten).toBe(false);
    }
    const escapes = sourceParts(pieced, undefined, 1_000_000).parts.flatMap((p) => p.lines.map((l) => l.escapes));
    expect(escapes).toEqual(lines.map((line) => line.includes("\\u")));
    expect(escapes).toEqual([false, false, true]);
  });
});
