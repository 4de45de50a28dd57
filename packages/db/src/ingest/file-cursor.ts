import { createHash } from "node:crypto";
import { open } from "node:fs/promises";
import type pg from "pg";
import type { JsonlCursor } from "@evotrainer/contract";

export const HEAD_BYTES = 4096;

/** Queries run on the pool or inside a transaction's client alike. */
type Queryable = Pick<pg.Pool | pg.PoolClient, "query">;

/**
 * sha256 of a source's first bytes, as far as a cursor has read them (at most HEAD_BYTES), and of
 * the digest of the results its lines carry, where a reader gives one (TextSource.resultsDigest).
 */
export function headBytesHash(bytes: Buffer, resultsDigest?: string): string {
  const hash = createHash("sha256").update(bytes.subarray(0, HEAD_BYTES));
  if (resultsDigest !== undefined) hash.update(`\0${resultsDigest}`);
  return hash.digest("hex");
}

/** sha256 of the file's first `min(upTo, 4 KiB)` bytes: what a cursor at `upTo` has already read. */
export async function headHash(file: string, upTo: number): Promise<string | null> {
  const handle = await open(file, "r").catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return null;
    throw error;
  });
  if (!handle) return null;
  try {
    const buffer = Buffer.alloc(Math.min(upTo, HEAD_BYTES));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return headBytesHash(buffer.subarray(0, bytesRead));
  } finally {
    await handle.close();
  }
}

export interface ResumedCursor extends JsonlCursor {
  /** The file no longer starts with what was read before (or shrank): reading starts over. */
  rewritten: boolean;
}

/**
 * Where ingest of `source` resumes. A file that shrank below the cursor, or whose first bytes changed,
 * was rewritten at the same path: it is read again from the start, and the rows it shares with the
 * old file are skipped by their uid, so nothing is lost or doubled.
 */
export async function resumeCursor(db: Queryable, jobId: string, source: string, file: string, size: number): Promise<ResumedCursor> {
  const saved = await storedCursor(db, jobId, source);
  if (saved.byteOffset === 0) return { byteOffset: 0, lineNumber: 0, rewritten: false };
  const same = size >= saved.byteOffset && (saved.headHash === null || saved.headHash === (await headHash(file, saved.byteOffset)));
  return same ? { byteOffset: saved.byteOffset, lineNumber: saved.lineNumber, rewritten: false } : { byteOffset: 0, lineNumber: 0, rewritten: true };
}

export interface StoredCursor extends JsonlCursor {
  /** sha256 of the first bytes read (see headHash); null for a cursor saved before hashes were kept. */
  headHash: string | null;
}

/** Where ingest of a job's `source` stands; the start when nothing was read yet. */
export async function storedCursor(db: Queryable, jobId: string, source: string, lock = false): Promise<StoredCursor> {
  const { rows } = await db.query<{ byteOffset: string; lineNumber: number; headHash: string | null }>(
    `SELECT "byteOffset"::text AS "byteOffset", "lineNumber", "headHash" FROM "IngestCursor" WHERE "jobId" = $1 AND file = $2${lock ? " FOR UPDATE" : ""}`,
    [jobId, source],
  );
  const saved = rows[0];
  return saved ? { byteOffset: Number(saved.byteOffset), lineNumber: saved.lineNumber, headHash: saved.headHash } : { byteOffset: 0, lineNumber: 0, headHash: null };
}

/** Stores the cursor with the hash of what it has read, in the caller's transaction. */
export async function saveCursor(client: Queryable, jobId: string, source: string, cursor: StoredCursor): Promise<void> {
  await saveCursors(client, jobId, [{ source, cursor }]);
}

/** Stores several sources' cursors in one statement, in the caller's transaction. */
export async function saveCursors(client: Queryable, jobId: string, cursors: readonly { source: string; cursor: StoredCursor }[]): Promise<void> {
  if (cursors.length === 0) return;
  await client.query(
    `INSERT INTO "IngestCursor" (id, "jobId", file, "byteOffset", "lineNumber", "headHash", "updatedAt")
     SELECT gen_random_uuid()::text, $1, c.file, c."byteOffset", c."lineNumber", c."headHash", now()
       FROM jsonb_to_recordset($2::jsonb) AS c(file text, "byteOffset" bigint, "lineNumber" int, "headHash" text)
     ON CONFLICT ("jobId", file) DO UPDATE
       SET "byteOffset" = EXCLUDED."byteOffset", "lineNumber" = EXCLUDED."lineNumber", "headHash" = EXCLUDED."headHash", "updatedAt" = now()`,
    [jobId, JSON.stringify(cursors.map(({ source, cursor }) => ({ file: source, ...cursor })))],
  );
}

/** Where ingest of each of a job's sources stands, by source; a source not read yet is absent. */
export async function storedCursors(db: Queryable, jobId: string, sources: readonly string[]): Promise<Map<string, StoredCursor>> {
  const { rows } = await db.query<{ file: string; byteOffset: string; lineNumber: number; headHash: string | null }>(
    `SELECT file, "byteOffset"::text AS "byteOffset", "lineNumber", "headHash" FROM "IngestCursor" WHERE "jobId" = $1 AND file = ANY($2::text[])`,
    [jobId, sources],
  );
  return new Map(rows.map((row) => [row.file, { byteOffset: Number(row.byteOffset), lineNumber: row.lineNumber, headHash: row.headHash }]));
}
