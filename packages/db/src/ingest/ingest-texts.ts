import type pg from "pg";
import { HEAD_BYTES, headBytesHash, storedCursors, type StoredCursor } from "./file-cursor.ts";
import { prepareLines, storeLines, type BadLine, type IngestInput, type IngestLine, type SourceLines } from "./ingest-lines.ts";
import { mayHoldUnstorable } from "./sanitize-text.ts";

/**
 * A JSONL text held in memory (a converted trajectory file, a trainer's rows, a file read whole):
 * its lines, so that no one has to join them into one string and split it again. Its cursor counts
 * bytes of the text these lines make, each ended by "\n", so a file staged on disk by an earlier
 * version resumes where it stopped.
 */
export interface TextSource {
  /** What its cursor and quarantined lines are recorded under. */
  source: string;
  /** Line i is the text's line i + 1, without its "\n"; empty where the line has nothing. */
  lines: readonly string[];
  /** Where the caller wrote the lines from values: value i is what line i is the JSON of (JSON.stringify's input). */
  values?: readonly unknown[];
  /**
   * Where the caller built a line from pieces (a rollout around its trajectory's turns): piece list i
   * is what line i joins. The line is measured and read from them, never itself: it is left a rope,
   * since reading one character of a joined line of hundreds of kilobytes copies it whole.
   */
  pieces?: readonly (readonly string[] | undefined)[];
  /** JSON of value i's largest fields, among line i's pieces (IngestLine.json). */
  json?: readonly IngestLine["json"][];
  /** Lines a reader could not read at all, quarantined with its reason (their lines here are empty). */
  unreadable: readonly BadLine[];
  /**
   * A digest of the results the lines carry, where a reader joined them from elsewhere (SWE-bench's
   * reports): results that changed since the text was read make it read again from its start, even
   * where they left its length and first bytes as they were (two results swapped).
   */
  resultsDigest?: string;
}

export interface TextsIngested {
  inserted: number;
  duplicates: number;
  quarantined: number;
  /** Rows stored before whose result a line read again changed (a result joined on a re-import). */
  resultsChanged: number;
  /** Sources that changed since they were last read, read again from their start. */
  rewritten: string[];
}

/** A source's lines from one cursor to the next. */
export type SourcePart = SourceLines & Required<Pick<SourceLines, "from">>;

export interface IngestTextsOptions {
  /** Bytes of lines per transaction, summed over the sources in it. */
  batchBytes?: number;
  /** After each batch commits, for each source it held lines of: how far into the source it is stored. */
  onStored?: (progress: { source: string; byteOffset: number; size: number }) => void;
}

/**
 * Ingests in-memory JSONL sources, many small ones to a transaction (one trajectory file each costs
 * a commit otherwise) and a large one cut into several: each transaction holds its rows, labels,
 * aggregates, quarantined lines and every one of its sources' cursors, so a crash resumes each
 * source at its next line and a source read before and unchanged adds nothing. The next batch is
 * parsed, labelled and encoded, and the sources after it read by the caller's iterator, while one
 * is stored.
 */
export async function ingestTexts(
  pool: pg.Pool,
  input: IngestInput,
  sources: AsyncIterable<TextSource> | Iterable<TextSource>,
  options: IngestTextsOptions = {},
): Promise<TextsIngested> {
  const limit = options.batchBytes ?? 4 * 1024 * 1024;
  const total: TextsIngested = { inserted: 0, duplicates: 0, quarantined: 0, resultsChanged: 0, rewritten: [] };
  let storing: Promise<void> = Promise.resolve();
  let batch: { part: SourcePart; size: number }[] = [];
  let batchBytes = 0;

  const store = async () => {
    if (batch.length === 0) return;
    const parts = batch;
    batch = [];
    batchBytes = 0;
    const prepared = await prepareLines(input, ...parts.map((p) => p.part));
    // One transaction at a time, in order: the next waits for the one before to commit.
    await storing;
    storing = storeLines(pool, input, prepared).then((stored) => {
      // Another import of the same sources is under way.
      if (stored.outcome !== "stored") throw new Error(`${stored.source}: its ingest cursor moved while it was read`);
      total.inserted += stored.inserted;
      total.duplicates += stored.duplicates;
      total.quarantined += stored.quarantined;
      total.resultsChanged += stored.resultsChanged;
      for (const { part, size } of parts) options.onStored?.({ source: part.source, byteOffset: part.next.byteOffset, size });
    });
    // Awaited by the next batch or at the end; meanwhile a failure must not surface as unhandled.
    storing.catch(() => {});
  };

  let waiting: TextSource[] = [];
  let waitingBytes = 0;
  // Cursors are looked up for a batch's worth of sources at once, not one query per small file.
  const take = async () => {
    const cursors = await storedCursors(pool, input.owner.jobId, waiting.map((s) => s.source));
    for (const source of waiting) {
      const parts = sourceParts(source, cursors.get(source.source), limit);
      if (parts.rewritten) total.rewritten.push(source.source);
      for (const part of parts.parts) {
        batch.push({ part, size: parts.size });
        batchBytes += part.next.byteOffset - part.from.byteOffset;
        if (batchBytes >= limit) await store();
      }
    }
    waiting = [];
    waitingBytes = 0;
  };
  for await (const source of sources) {
    waiting.push(source);
    waitingBytes += source.lines.reduce((sum, line) => sum + line.length + 1, 0);
    if (waitingBytes >= limit) await take();
  }
  await take();
  await store();
  await storing;
  return total;
}

/**
 * A source's lines after its cursor, cut into parts of about `limit` bytes, each with the cursor
 * before and after it: what one ingest transaction (here, or one upload to a server) takes. A
 * source whose first bytes no longer match what its cursor read, or that is shorter, starts over
 * (rows already stored are skipped by uid). Lines the reader could not read go with the first
 * part, even when nothing else is new: quarantining them again changes nothing.
 */
export function sourceParts(source: TextSource, saved: StoredCursor | undefined, limit: number): { parts: SourcePart[]; size: number; rewritten: boolean } {
  const offsets = [0];
  for (const [index, line] of source.lines.entries()) offsets.push(offsets.at(-1)! + lineBytes(line, source.pieces?.[index]) + 1);
  const size = offsets.at(-1)!;
  const head = headOf(source);
  const hashAt = (byteOffset: number) => headBytesHash(head.subarray(0, byteOffset), source.resultsDigest);
  let startLine = 0;
  let rewritten = false;
  if (saved && saved.byteOffset > 0) {
    const same = saved.byteOffset <= size && offsets[saved.lineNumber] === saved.byteOffset && (saved.headHash === null || saved.headHash === hashAt(saved.byteOffset));
    if (same) startLine = saved.lineNumber;
    else rewritten = true;
  }
  const parts: SourcePart[] = [];
  let from = startLine;
  while (from < source.lines.length || (parts.length === 0 && source.unreadable.length > 0)) {
    let to = Math.min(from + 1, source.lines.length);
    while (to < source.lines.length && offsets[to]! - offsets[from]! < limit) to += 1;
    const lines: IngestLine[] = [];
    for (let index = from; index < to; index++) {
      const pieces = source.pieces?.[index];
      const value = source.values?.[index];
      if (pieces) {
        const json = source.json?.[index];
        lines.push({ lineNumber: index + 1, text: source.lines[index]!, invalidUtf8: false, escapes: pieces.some(mayHoldUnstorable), ...(value === undefined ? {} : { value }), ...(json ? { json } : {}) });
        continue;
      }
      let text = source.lines[index]!;
      if (text.endsWith("\r")) text = text.slice(0, -1);
      // Some Windows tools start UTF-8 files with a byte-order mark; it is not part of the JSON.
      if (index === 0 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      if (text.trim() === "") continue;
      lines.push({ lineNumber: index + 1, text, invalidUtf8: false, ...(value === undefined ? {} : { value }) });
    }
    parts.push({
      source: source.source,
      lines,
      unreadable: parts.length === 0 ? source.unreadable : [],
      from: { byteOffset: offsets[from]!, lineNumber: from },
      next: { byteOffset: offsets[to]!, lineNumber: to, headHash: hashAt(offsets[to]!) },
    });
    from = to;
  }
  return { parts, size, rewritten };
}

const lineBytes = (line: string, pieces: readonly string[] | undefined) =>
  pieces ? pieces.reduce((sum, piece) => sum + Buffer.byteLength(piece), 0) : Buffer.byteLength(line);

/** The first `chars` characters of a line (fewer if it is shorter), reading only the pieces they lie in. */
function lineStart(line: string, pieces: readonly string[] | undefined, chars: number): string {
  if (!pieces) return line.slice(0, chars);
  let start = "";
  for (const piece of pieces) {
    if (start.length >= chars) break;
    start += piece.slice(0, chars - start.length);
  }
  return start;
}

/** The text's first HEAD_BYTES bytes (or all of it), which cursors hash. */
function headOf(source: TextSource): Buffer {
  // One character more than the bytes needed: never cut between the halves of a surrogate pair.
  let text = "";
  for (const [index, line] of source.lines.entries()) {
    if (text.length > HEAD_BYTES) break;
    text += `${lineStart(line, source.pieces?.[index], HEAD_BYTES + 1 - text.length)}\n`;
  }
  return Buffer.from(text.slice(0, HEAD_BYTES + 1)).subarray(0, HEAD_BYTES);
}
