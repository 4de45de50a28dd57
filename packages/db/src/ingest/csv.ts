import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type pg from "pg";
import { from as copyFrom } from "pg-copy-streams";

/**
 * One field of a CSV line for `COPY … (FORMAT csv)`: null as an unquoted empty field (SQL NULL),
 * everything else quoted with inner quotes doubled, objects as JSON text for jsonb columns.
 */
export function csvField(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "boolean") return value ? "t" : "f";
  if (typeof value === "number" || typeof value === "bigint") return String(value);
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return `"${text.replaceAll('"', '""')}"`;
}

export function csvLine(values: readonly unknown[]): string {
  return `${values.map(csvField).join(",")}\n`;
}

/** A value whose JSON text was written before, as pieces that join into it: stored without writing it again. */
export class JsonText {
  constructor(readonly pieces: readonly string[]) {}
}

/**
 * csvLine's text as parts, a JsonText field as the quoted parts of its pieces: a value of hundreds of
 * kilobytes (a trajectory) is neither written as JSON again nor made one string (see CsvLines.pushParts).
 */
export function csvLineParts(values: readonly unknown[]): string[] {
  const parts: string[] = [];
  for (const [index, value] of values.entries()) {
    if (index > 0) parts.push(",");
    if (value instanceof JsonText) {
      parts.push('"');
      for (const piece of value.pieces) parts.push(piece.includes('"') ? piece.replaceAll('"', '""') : piece);
      parts.push('"');
    } else parts.push(csvField(value));
  }
  parts.push("\n");
  return parts;
}

/** COPY data is sent in chunks of this many bytes: one socket write each, not one per line. */
const CHUNK_BYTES = 256 * 1024;

/**
 * Buffers of batches stored, for the next batches to encode into: fresh memory of this size costs a
 * page fault per 4 KB on first touch, and on the VMs CI runs on, writing lines into it took 8× as long
 * as into memory written before. A few are kept, not more: an import holds two batches at a time.
 */
const spare: Buffer[] = [];
const SPARE_BUFFERS = 4;
// A batch of one huge line is rare: its buffer is not kept for the life of a server.
const SPARE_BUFFER_BYTES = 32 * 1024 * 1024;

/** The smallest spare buffer that holds `bytes`, else a new one. */
function bufferOf(bytes: number): Buffer {
  let best = -1;
  for (const [index, buffer] of spare.entries()) {
    if (buffer.length >= bytes && (best === -1 || buffer.length < spare[best]!.length)) best = index;
  }
  return best === -1 ? Buffer.allocUnsafe(bytes) : spare.splice(best, 1)[0]!;
}

function spareBuffer(buffer: Buffer): void {
  if (buffer.length > SPARE_BUFFER_BYTES) return;
  if (spare.length < SPARE_BUFFERS) spare.push(buffer);
  else {
    // Keep the largest: a smaller batch fits in them, a larger one would allocate again.
    const smallest = spare.reduce((min, b, i) => (b.length < spare[min]!.length ? i : min), 0);
    if (spare[smallest]!.length < buffer.length) spare[smallest] = buffer;
  }
}

/**
 * CSV lines encoded to UTF-8 as they are added, into one buffer outside the JavaScript heap. A batch's
 * lines live until it is stored; held as strings, every young-generation collection meanwhile would
 * copy them, and encoding the rope that `chunk += line` builds is ten times slower than encoding each
 * flat line into place. `release` hands the buffer to the next batch once these lines are sent.
 */
export class CsvLines {
  private constructor(
    private bytes: Buffer,
    private used: number,
    private readonly ends: number[],
    /** Whether `bytes` is this object's own (released after use), not a view of another's. */
    private readonly owned: boolean,
  ) {}

  /** `bytes` is a guess at the size, to grow the buffer rarely. */
  static withCapacity(bytes: number): CsvLines {
    return new CsvLines(bufferOf(Math.max(bytes, 1024)), 0, [], true);
  }

  static of(lines: Iterable<string>): CsvLines {
    const csv = CsvLines.withCapacity(64 * 1024);
    for (const line of lines) csv.push(line);
    return csv;
  }

  get count(): number {
    return this.ends.length;
  }

  push(line: string): void {
    this.reserve(line.length);
    this.used += this.bytes.write(line, this.used);
    this.ends.push(this.used);
  }

  /** One line given as parts (csvLineParts), each written in place: the line is never one string. */
  pushParts(parts: readonly string[]): void {
    this.reserve(parts.reduce((sum, part) => sum + part.length, 0));
    for (const part of parts) this.used += this.bytes.write(part, this.used);
    this.ends.push(this.used);
  }

  /** Room for `chars` UTF-16 code units more, each at most 3 bytes in UTF-8. */
  private reserve(chars: number): void {
    const needed = this.used + chars * 3;
    if (needed <= this.bytes.length) return;
    const grown = bufferOf(Math.max(needed, this.bytes.length * 2));
    this.bytes.copy(grown, 0, 0, this.used);
    if (this.owned) spareBuffer(this.bytes);
    this.bytes = grown;
  }

  /** Line `index` alone, sharing these bytes. */
  line(index: number): CsvLines {
    const start = index === 0 ? 0 : this.ends[index - 1]!;
    const end = this.ends[index]!;
    return new CsvLines(this.bytes.subarray(start, end), end - start, [end - start], false);
  }

  /** Only the lines at `indexes` (in that order), copied. */
  subset(indexes: readonly number[]): CsvLines {
    const out = CsvLines.withCapacity(this.used);
    for (const index of indexes) {
      const start = index === 0 ? 0 : this.ends[index - 1]!;
      out.used += this.bytes.copy(out.bytes, out.used, start, this.ends[index]!);
      out.ends.push(out.used);
    }
    return out;
  }

  /** These lines, each with `prefixes[i]` in front of line i: fields known only when the lines are written. */
  prefixed(prefixes: readonly string[]): CsvLines {
    const out = CsvLines.withCapacity(this.used + prefixes.reduce((sum, p) => sum + p.length * 3, 0));
    let start = 0;
    for (const [index, end] of this.ends.entries()) {
      out.used += out.bytes.write(prefixes[index]!, out.used);
      out.used += this.bytes.copy(out.bytes, out.used, start, end);
      out.ends.push(out.used);
      start = end;
    }
    return out;
  }

  /**
   * Done with these lines, once a COPY of them succeeded (so no socket write still holds their bytes):
   * their buffer goes to the next batch.
   */
  release(): void {
    if (this.owned && this.bytes.length > 0) spareBuffer(this.bytes);
    this.bytes = Buffer.alloc(0);
    this.used = 0;
    this.ends.length = 0;
  }

  *chunks(): Generator<Buffer> {
    for (let start = 0; start < this.used; start += CHUNK_BYTES) yield this.bytes.subarray(start, Math.min(start + CHUNK_BYTES, this.used));
  }
}

/** Streams CSV lines into `COPY <target> FROM STDIN (FORMAT csv)` on `client`, in its transaction. */
export async function copyCsv(client: pg.PoolClient, target: string, csv: CsvLines): Promise<void> {
  await pipeline(Readable.from(csv.chunks()), client.query(copyFrom(`COPY ${target} FROM STDIN (FORMAT csv)`)));
}
