import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readFileLines } from "./file-lines.ts";

const dir = mkdtempSync(join(tmpdir(), "evo-file-lines-"));
const fileOf = (name: string, text: string) => {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
};

describe("readFileLines", () => {
  it("splits lines across chunk boundaries as split('\\n') does, keeping the unterminated rest apart", () => {
    const lines = Array.from({ length: 40_000 }, (_, i) => `{"i":${i},"text":"${"é".repeat(i % 50)}"}`);
    const read = readFileLines(fileOf("many.jsonl", `${lines.join("\n")}\n{"partial":`));
    expect(read.lines).toEqual(lines);
    expect(read.rest).toBe('{"partial":');
    expect(read.tooLong).toEqual([]);
  });

  it("skips a line over the limit, spanning several chunks, with its line number and size, and reads the lines around it", () => {
    const huge = "x".repeat(3 * 1024 * 1024 + 5);
    const read = readFileLines(fileOf("huge.jsonl", `small-1\n${huge}\nsmall-2\n${huge}`), 1024);
    expect(read.lines).toEqual(["small-1", "", "small-2"]);
    expect(read.tooLong).toEqual([{ lineNumber: 2, bytes: huge.length }]);
    expect(read.rest).toBe("");
    expect(read.restBytes).toBe(huge.length);
  });

  it("reads a line of exactly the limit", () => {
    const read = readFileLines(fileOf("edge.jsonl", `${"y".repeat(1024)}\n`), 1024);
    expect(read.lines).toEqual(["y".repeat(1024)]);
    expect(read.tooLong).toEqual([]);
  });
});
