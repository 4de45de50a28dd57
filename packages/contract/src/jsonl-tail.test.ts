import { appendFile, mkdtemp, rm, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ContractFileError } from "./contract-error.ts";
import { readJsonlFrom, type JsonlCursor, type JsonlLine, type JsonlTailOptions } from "./jsonl-tail.ts";

let dir: string;
let file: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "evo-contract-tail-"));
  file = join(dir, "rows.jsonl");
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const start: JsonlCursor = { byteOffset: 0, lineNumber: 0 };

/** Tails to the current end of the file the way ingest does, carrying the cursor between calls. */
async function drain(cursor: JsonlCursor, options: Partial<JsonlTailOptions> = {}) {
  const lines: JsonlLine[] = [];
  let calls = 0;
  for (;;) {
    const tail = await readJsonlFrom(file, { ...options, ...cursor });
    calls += 1;
    lines.push(...tail.lines);
    cursor = { byteOffset: tail.nextOffset, lineNumber: tail.nextLineNumber };
    if (!tail.hasMore) return { lines, cursor, calls };
  }
}

describe("readJsonlFrom", () => {
  it("returns a line being written only once it is complete, and exactly once", async () => {
    await writeFile(file, '{"a":1}\n');
    const first = await readJsonlFrom(file, start);
    expect(first.lines).toEqual([{ lineNumber: 1, byteOffset: 0, text: '{"a":1}', invalidUtf8: false }]);
    expect(first).toMatchObject({ nextOffset: 8, nextLineNumber: 1, hasMore: false });

    await appendFile(file, '{"b":[1,');
    const cursor = { byteOffset: first.nextOffset, lineNumber: first.nextLineNumber };
    const half = await readJsonlFrom(file, cursor);
    expect(half).toEqual({ lines: [], nextOffset: 8, nextLineNumber: 1, hasMore: false });

    await appendFile(file, "2]}");
    expect((await readJsonlFrom(file, cursor)).lines).toEqual([]);

    await appendFile(file, "\n");
    const whole = await readJsonlFrom(file, cursor);
    expect(whole.lines).toEqual([{ lineNumber: 2, byteOffset: 8, text: '{"b":[1,2]}', invalidUtf8: false }]);
    expect(whole).toMatchObject({ nextOffset: 20, nextLineNumber: 2 });

    const after = await readJsonlFrom(file, { byteOffset: whole.nextOffset, lineNumber: whole.nextLineNumber });
    expect(after.lines).toEqual([]);
  });

  it("sees each line exactly once while a writer appends in random pieces", async () => {
    const rows = Array.from({ length: 200 }, (_, i) => JSON.stringify({ i, text: "é🎉".repeat(i % 7) }));
    const bytes = Buffer.from(rows.map((row) => `${row}\n`).join(""));
    let random = 12345;
    const next = () => (random = (random * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const seen: string[] = [];
    let cursor = start;
    for (let written = 0; written < bytes.length; ) {
      const piece = Math.min(bytes.length - written, 1 + Math.floor(next() * 90));
      await appendFile(file, bytes.subarray(written, written + piece));
      written += piece;
      const tail = await readJsonlFrom(file, { ...cursor, chunkBytes: 16 });
      seen.push(...tail.lines.map((line) => line.text));
      cursor = { byteOffset: tail.nextOffset, lineNumber: tail.nextLineNumber };
    }
    expect(seen).toEqual(rows);
    expect(cursor).toEqual({ byteOffset: bytes.length, lineNumber: rows.length });
  });

  it("decodes multibyte UTF-8 characters split across read chunks", async () => {
    const text = '{"s":"naïve ✓ 世界 🎉🎉"}';
    await writeFile(file, `${text}\n${text}\n`);
    for (let chunkBytes = 1; chunkBytes <= 40; chunkBytes++) {
      const { lines } = await readJsonlFrom(file, { ...start, chunkBytes });
      expect(lines.map((line) => line.text), `chunkBytes ${chunkBytes}`).toEqual([text, text]);
    }
  });

  it("holds back a line cut in the middle of a multibyte character", async () => {
    const line = Buffer.from('{"s":"🎉"}\n');
    const cut = line.indexOf(Buffer.from("🎉")) + 2;
    await writeFile(file, line.subarray(0, cut));
    expect((await readJsonlFrom(file, start)).lines).toEqual([]);
    await appendFile(file, line.subarray(cut));
    expect((await readJsonlFrom(file, start)).lines.map((l) => l.text)).toEqual(['{"s":"🎉"}']);
  });

  it("strips CRLF, skips empty lines but counts them, and drops a leading byte-order mark", async () => {
    // Bytes: BOM 3, line 1 7+2, empty 2, blanks 4 → line 4 at 18; 7+2, empty 1 → line 6 at 28.
    await writeFile(file, '\uFEFF{"a":1}\r\n\r\n   \n{"b":2}\r\n\n{"c":3}\n');
    const tail = await readJsonlFrom(file, start);
    expect(tail.lines).toEqual([
      { lineNumber: 1, byteOffset: 0, text: '{"a":1}', invalidUtf8: false },
      { lineNumber: 4, byteOffset: 18, text: '{"b":2}', invalidUtf8: false },
      { lineNumber: 6, byteOffset: 28, text: '{"c":3}', invalidUtf8: false },
    ]);
    expect(tail.nextLineNumber).toBe(6);
  });

  it("continues line numbers and offsets from a stored cursor", async () => {
    await writeFile(file, '{"a":1}\n{"b":2}\n{"c":3}\n');
    const tail = await readJsonlFrom(file, { byteOffset: 8, lineNumber: 1 });
    expect(tail.lines).toEqual([
      { lineNumber: 2, byteOffset: 8, text: '{"b":2}', invalidUtf8: false },
      { lineNumber: 3, byteOffset: 16, text: '{"c":3}', invalidUtf8: false },
    ]);
  });

  it("reads a large file in bounded calls with maxBytes, each line once and in order", async () => {
    const rows = Array.from({ length: 5000 }, (_, i) => JSON.stringify({ i, pad: "x".repeat(i % 50) }));
    await writeFile(file, rows.map((row) => `${row}\n`).join(""));
    const maxBytes = 4096;
    const longest = Math.max(...rows.map((row) => row.length + 1));
    let cursor = start;
    const seen: string[] = [];
    let calls = 0;
    for (;;) {
      const tail = await readJsonlFrom(file, { ...cursor, maxBytes, chunkBytes: 1000 });
      calls += 1;
      const consumed = tail.nextOffset - cursor.byteOffset;
      expect(consumed).toBeLessThan(maxBytes + longest);
      seen.push(...tail.lines.map((line) => line.text));
      cursor = { byteOffset: tail.nextOffset, lineNumber: tail.nextLineNumber };
      if (!tail.hasMore) break;
    }
    expect(seen).toEqual(rows);
    expect(calls).toBeGreaterThan(10);
  });

  it("returns a line longer than maxBytes whole, so a call always makes progress", async () => {
    const long = JSON.stringify({ text: "y".repeat(10_000) });
    await writeFile(file, `${long}\n{"b":2}\n`);
    const { lines, calls } = await drain(start, { maxBytes: 100, chunkBytes: 256 });
    expect(lines.map((line) => line.text)).toEqual([long, '{"b":2}']);
    expect(calls).toBe(2);
  });

  it("treats a missing file as no lines yet", async () => {
    expect(await readJsonlFrom(join(dir, "absent.jsonl"), { byteOffset: 0, lineNumber: 0 })).toEqual({
      lines: [],
      nextOffset: 0,
      nextLineNumber: 0,
      hasMore: false,
    });
  });

  it("refuses a cursor past the end of a file that was rewritten", async () => {
    await writeFile(file, '{"a":1}\n{"b":2}\n');
    await truncate(file, 4);
    await expect(readJsonlFrom(file, { byteOffset: 16, lineNumber: 2 })).rejects.toBeInstanceOf(ContractFileError);
    await expect(readJsonlFrom(file, { byteOffset: 16, lineNumber: 2 })).rejects.toThrow(/truncated or rewritten/);
  });

  it("rejects an invalid cursor", async () => {
    await expect(readJsonlFrom(file, { byteOffset: -1, lineNumber: 0 })).rejects.toThrow(RangeError);
    await expect(readJsonlFrom(file, { byteOffset: 0, lineNumber: 0, maxBytes: 0 })).rejects.toThrow(RangeError);
  });

  it("marks a line whose bytes are not UTF-8, and only that one", async () => {
    await writeFile(file, Buffer.concat([Buffer.from('{"a":"caf'), Buffer.from([0xe9]), Buffer.from('"}\n{"b":"café"}\n')]));
    const tail = await readJsonlFrom(file, { byteOffset: 0, lineNumber: 0 });
    expect(tail.lines.map((l) => [l.text, l.invalidUtf8])).toEqual([['{"a":"caf\ufffd"}', true], ['{"b":"café"}', false]]);
  });
});
