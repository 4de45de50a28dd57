import { posix } from "node:path";
import type { FileEntryWithStats, SFTPWrapper, Stats } from "ssh2";
import type { RemoteFile } from "../executor.ts";

// SFTP status code for a path that does not exist (SSH_FX_NO_SUCH_FILE).
const NO_SUCH_FILE = 2;

const missing = (error: unknown) => (error as { code?: unknown } | null)?.code === NO_SUCH_FILE;

function open(sftp: SFTPWrapper, path: string): Promise<Buffer | null> {
  return new Promise((resolve, reject) =>
    sftp.open(path, "r", (error, handle) => (error ? (missing(error) ? resolve(null) : reject(error)) : resolve(handle))),
  );
}

function close(sftp: SFTPWrapper, handle: Buffer): Promise<void> {
  return new Promise((resolve, reject) => sftp.close(handle, (error) => (error ? reject(error) : resolve())));
}

function fstat(sftp: SFTPWrapper, handle: Buffer): Promise<Stats> {
  return new Promise((resolve, reject) => sftp.fstat(handle, (error, stats) => (error ? reject(error) : resolve(stats))));
}

function read(sftp: SFTPWrapper, handle: Buffer, buffer: Buffer, offset: number, length: number, position: number): Promise<number> {
  return new Promise((resolve, reject) =>
    sftp.read(handle, buffer, offset, length, position, (error, bytesRead) => (error ? reject(error) : resolve(bytesRead))),
  );
}

async function withFile<T>(sftp: SFTPWrapper, path: string, whenMissing: T, use: (handle: Buffer) => Promise<T>): Promise<T> {
  const handle = await open(sftp, path);
  if (!handle) return whenMissing;
  try {
    return await use(handle);
  } finally {
    await close(sftp, handle);
  }
}

// One SFTP read answers at most a few tens of KiB, so a long read is many round trips: keep several
// in flight (as ssh2's fastGet does) instead of waiting for each.
const SLICE_BYTES = 1024 * 1024;
const SLICES_IN_FLIGHT = 4;

/** Fills `buffer[start, end)` from the file; the bytes read, fewer only at the end of the file. */
async function readSlice(sftp: SFTPWrapper, handle: Buffer, buffer: Buffer, start: number, end: number, position: number): Promise<number> {
  let filled = start;
  // A server may answer a read with fewer bytes than asked for before the end of the file.
  while (filled < end) {
    const bytesRead = await read(sftp, handle, buffer, filled, end - filled, position + filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return filled - start;
}

async function readAt(sftp: SFTPWrapper, handle: Buffer, position: number, maxBytes: number): Promise<Buffer> {
  const buffer = Buffer.alloc(maxBytes);
  const slices = Array.from({ length: Math.ceil(maxBytes / SLICE_BYTES) }, (_, i) => i * SLICE_BYTES);
  const lengths: number[] = [];
  for (let i = 0; i < slices.length; i += SLICES_IN_FLIGHT) {
    const batch = slices.slice(i, i + SLICES_IN_FLIGHT);
    lengths.push(...(await Promise.all(batch.map((start) => readSlice(sftp, handle, buffer, start, Math.min(start + SLICE_BYTES, maxBytes), position)))));
    if (lengths.at(-1)! < Math.min(SLICE_BYTES, maxBytes - batch.at(-1)!)) break;
  }
  // The file ends inside the first slice that came back short.
  const short = lengths.findIndex((length, i) => length < Math.min(SLICE_BYTES, maxBytes - slices[i]!));
  const filled = short < 0 ? maxBytes : slices[short]! + lengths[short]!;
  return buffer.subarray(0, filled);
}

/** Up to `maxBytes` of `path` from `offset`; empty when the file is missing or shorter. */
export function readRange(sftp: SFTPWrapper, path: string, offset: number, maxBytes: number): Promise<Buffer> {
  return withFile(sftp, path, Buffer.alloc(0), (handle) => readAt(sftp, handle, offset, maxBytes));
}

/** The last `maxBytes` of `path` as text; empty when it does not exist. */
export function readTail(sftp: SFTPWrapper, path: string, maxBytes: number): Promise<string> {
  return withFile(sftp, path, "", async (handle) => {
    const { size } = await fstat(sftp, handle);
    const start = Math.max(0, size - maxBytes);
    return (await readAt(sftp, handle, start, size - start)).toString("utf8");
  });
}

/** A small file's text, `null` when it does not exist. */
export function readText(sftp: SFTPWrapper, path: string): Promise<string | null> {
  return withFile<string | null>(sftp, path, null, async (handle) => {
    const { size } = await fstat(sftp, handle);
    return (await readAt(sftp, handle, 0, size)).toString("utf8");
  });
}

export function writeFile(sftp: SFTPWrapper, path: string, content: string): Promise<void> {
  return new Promise((resolve, reject) => sftp.writeFile(path, content, (error) => (error ? reject(error) : resolve())));
}

export function exists(sftp: SFTPWrapper, path: string): Promise<boolean> {
  return new Promise((resolve, reject) =>
    sftp.stat(path, (error) => (error ? (missing(error) ? resolve(false) : reject(error)) : resolve(true))),
  );
}

function readdir(sftp: SFTPWrapper, path: string): Promise<FileEntryWithStats[]> {
  return new Promise((resolve, reject) =>
    sftp.readdir(path, (error, list) => (error ? (missing(error) ? resolve([]) : reject(error)) : resolve(list))),
  );
}

/** Regular files under `dir` (recursively) with paths relative to `root`; empty when `dir` is missing. */
export async function listFiles(sftp: SFTPWrapper, root: string, dir: string): Promise<RemoteFile[]> {
  const entries = (await readdir(sftp, posix.join(root, dir))).filter(({ filename }) => filename !== "." && filename !== "..");
  const nested = await Promise.all(
    entries.map(async ({ filename, attrs }): Promise<RemoteFile[]> => {
      const path = posix.join(dir, filename);
      if (attrs.isDirectory()) return listFiles(sftp, root, path);
      return attrs.isFile() ? [{ path, size: attrs.size }] : [];
    }),
  );
  return nested.flat();
}
