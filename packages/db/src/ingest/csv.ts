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

/** CSV lines are sent in chunks of about this many characters: one socket write each, not one per line. */
const CHUNK_CHARS = 256 * 1024;

function* chunks(lines: Iterable<string>): Generator<string> {
  let chunk = "";
  for (const line of lines) {
    chunk += line;
    if (chunk.length >= CHUNK_CHARS) {
      yield chunk;
      chunk = "";
    }
  }
  if (chunk.length > 0) yield chunk;
}

/** Streams CSV lines into `COPY <target> FROM STDIN (FORMAT csv)` on `client`, in its transaction. */
export async function copyCsv(client: pg.PoolClient, target: string, lines: Iterable<string>): Promise<void> {
  await pipeline(Readable.from(chunks(lines)), client.query(copyFrom(`COPY ${target} FROM STDIN (FORMAT csv)`)));
}
