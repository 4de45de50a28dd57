import { isUtf8 } from "node:buffer";
import { open } from "node:fs/promises";
import { ContractFileError } from "./contract-error.ts";

/**
 * Where a tail left off. `lineNumber` counts the lines before `byteOffset` (0 at the start of the
 * file); both are stored together (IngestCursor) so an ingest restart resumes exactly there.
 */
export interface JsonlCursor {
  byteOffset: number;
  lineNumber: number;
}

export interface JsonlLine {
  /** 1-based, counting empty lines too, so it matches what an editor shows. */
  lineNumber: number;
  /** Offset of the line's first byte. */
  byteOffset: number;
  /** The line without its line ending. */
  text: string;
  /** Bytes that are not UTF-8 were decoded as U+FFFD: the text is not exactly what the file holds. */
  invalidUtf8: boolean;
}

export interface JsonlTail {
  lines: JsonlLine[];
  /** The cursor to pass next time: just after the last complete line read. */
  nextOffset: number;
  nextLineNumber: number;
  /** Stopped at `maxBytes` with more of the file left: call again without waiting. */
  hasMore: boolean;
}

export interface JsonlTailOptions extends JsonlCursor {
  /**
   * Roughly how many bytes one call consumes. Reading stops at the first line end past it; a
   * single line longer than this is still returned whole, so a call always makes progress.
   */
  maxBytes?: number;
  /** Size of each read. Memory in use is about `maxBytes` plus the longest line. */
  chunkBytes?: number;
}

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

/**
 * Reads the complete lines of a growing JSONL file from a cursor. A final line without its "\n"
 * is still being written: it is not returned and the cursor stays before it, so the next call
 * returns it once, whole. Lines are cut on bytes and decoded whole, so a multibyte character split
 * across reads decodes correctly. Empty lines are counted but not returned. A missing file has no
 * lines yet; a file shorter than the cursor was rewritten, and is an error the caller must resolve.
 */
export async function readJsonlFrom(file: string, options: JsonlTailOptions): Promise<JsonlTail> {
  const { byteOffset, lineNumber } = options;
  const maxBytes = options.maxBytes ?? 8 * 1024 * 1024;
  const chunkBytes = options.chunkBytes ?? 64 * 1024;
  const isCount = (n: number) => Number.isSafeInteger(n) && n >= 0;
  if (!isCount(byteOffset) || !isCount(lineNumber)) {
    throw new RangeError(`invalid JSONL cursor {byteOffset: ${byteOffset}, lineNumber: ${lineNumber}}`);
  }
  if (!(maxBytes > 0) || !(chunkBytes > 0)) throw new RangeError("maxBytes and chunkBytes must be positive");

  const result: JsonlTail = { lines: [], nextOffset: byteOffset, nextLineNumber: lineNumber, hasMore: false };
  let handle;
  try {
    handle = await open(file, "r");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return result;
    throw error;
  }
  try {
    // Only bytes present now are read; anything appended meanwhile waits for the next call.
    const size = (await handle.stat()).size;
    if (size < byteOffset) {
      throw new ContractFileError(
        file,
        `is ${size} bytes, shorter than the cursor at byte ${byteOffset}: ` +
          "it was truncated or rewritten; re-read it from the start",
      );
    }
    let position = byteOffset;
    let pending: Buffer[] = [];
    let full = false;
    while (position < size && !full) {
      // A fresh buffer per read: `pending` keeps views of earlier ones until their line ends.
      const buffer = Buffer.allocUnsafe(Math.min(chunkBytes, size - position));
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, position);
      if (bytesRead === 0) break;
      const chunk = buffer.subarray(0, bytesRead);
      let start = 0;
      for (let end = chunk.indexOf(NEWLINE); end !== -1 && !full; end = chunk.indexOf(NEWLINE, start)) {
        pending.push(chunk.subarray(start, end));
        takeLine(result, Buffer.concat(pending));
        pending = [];
        result.nextOffset = position + end + 1;
        start = end + 1;
        full = result.nextOffset - byteOffset >= maxBytes;
      }
      pending.push(chunk.subarray(start));
      position += bytesRead;
    }
    result.hasMore = full && result.nextOffset < size;
  } finally {
    await handle.close();
  }
  return result;
}

function takeLine(result: JsonlTail, bytes: Buffer): void {
  const lineStart = result.nextOffset;
  result.nextLineNumber += 1;
  let length = bytes.length;
  if (length > 0 && bytes[length - 1] === CARRIAGE_RETURN) length -= 1;
  const content = bytes.subarray(0, length);
  let text = content.toString("utf8");
  // Some Windows tools start UTF-8 files with a byte-order mark; it is not part of the JSON.
  if (lineStart === 0 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.trim() === "") return;
  result.lines.push({ lineNumber: result.nextLineNumber, byteOffset: lineStart, text, invalidUtf8: !isUtf8(content) });
}
