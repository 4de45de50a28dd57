import { closeSync, openSync, readSync } from "node:fs";

/**
 * The longest line (or one-document file) the CLI decodes: well under V8's longest string (about
 * 512 Mi characters, where a larger one throws a bare RangeError), and over what one request to a
 * server or one PostgreSQL JSON value takes, so a line this long could be stored nowhere anyway.
 */
export const MAX_LINE_BYTES = 256 * 1024 * 1024;

const CHUNK_BYTES = 1024 * 1024;

export const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

/** Why a line of `bytes` is not read: what a person reads beside its file and line. */
export const tooLongReason = (bytes: number, maxLineBytes: number) => `the line is ${mib(bytes)}, longer than the ${mib(maxLineBytes)} a line may be: split it, or leave it out`;

export interface FileLines {
  /** Line i is the file's line i + 1 without its "\n"; empty where the line was too long to read. */
  lines: string[];
  /** Lines longer than the limit, never decoded: their number and size. */
  tooLong: { lineNumber: number; bytes: number }[];
  /** The text after the last "\n" (a line still being written, or a last line without one); empty when too long to read. */
  rest: string;
  restBytes: number;
}

/**
 * A file's lines, read a chunk at a time so that no string ever holds the whole file (a file of
 * many lines may be larger than V8's longest string) and a line over `maxLineBytes` is never
 * joined: it is counted and skipped, so one huge line costs neither memory nor the rest of the file.
 */
export function readFileLines(file: string, maxLineBytes = MAX_LINE_BYTES): FileLines {
  const out: FileLines = { lines: [], tooLong: [], rest: "", restBytes: 0 };
  const fd = openSync(file, "r");
  const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let skipping = false;
  const add = (piece: Buffer) => {
    pendingBytes += piece.length;
    if (skipping) return;
    if (pendingBytes > maxLineBytes) {
      skipping = true;
      pending = [];
    } else pending.push(Buffer.from(piece));
  };
  const text = () => (pending.length === 1 ? pending[0]!.toString("utf8") : Buffer.concat(pending).toString("utf8"));
  try {
    for (let read: number; (read = readSync(fd, chunk, 0, CHUNK_BYTES, null)) > 0; ) {
      let start = 0;
      for (let end = chunk.indexOf(10, start); end !== -1 && end < read; end = chunk.indexOf(10, start)) {
        add(chunk.subarray(start, end));
        if (skipping) out.tooLong.push({ lineNumber: out.lines.length + 1, bytes: pendingBytes });
        out.lines.push(skipping ? "" : text());
        pending = [];
        pendingBytes = 0;
        skipping = false;
        start = end + 1;
      }
      if (start < read) add(chunk.subarray(start, read));
    }
  } finally {
    closeSync(fd);
  }
  out.restBytes = pendingBytes;
  if (!skipping) out.rest = text();
  return out;
}
