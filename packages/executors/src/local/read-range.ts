import { open, readdir, stat } from "node:fs/promises";
import { join, relative } from "node:path";
import type { RemoteFile } from "../executor.ts";

/** Up to `maxBytes` of `file` from `offset`; empty when the file is missing or shorter. */
export async function readRange(file: string, offset: number, maxBytes: number): Promise<Buffer> {
  const handle = await open(file, "r").catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return null;
    throw error;
  });
  if (!handle) return Buffer.alloc(0);
  try {
    const buffer = Buffer.alloc(maxBytes);
    const { bytesRead } = await handle.read(buffer, 0, maxBytes, offset);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** The last `maxBytes` of `file` as text; empty when it does not exist. */
export async function readTail(file: string, maxBytes: number): Promise<string> {
  const handle = await open(file, "r").catch(() => null);
  if (!handle) return "";
  try {
    const { size } = await handle.stat();
    const start = Math.max(0, size - maxBytes);
    const buffer = Buffer.alloc(size - start);
    await handle.read(buffer, 0, buffer.length, start);
    return buffer.toString("utf8");
  } finally {
    await handle.close();
  }
}

/** Regular files under `dir` (recursively) with paths relative to `root`; empty when `dir` is missing. */
export async function listFiles(root: string, dir: string): Promise<RemoteFile[]> {
  const entries = await readdir(join(root, dir), { recursive: true, withFileTypes: true }).catch(() => []);
  const files = entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
  return Promise.all(files.map(async (file) => ({ path: relative(root, file), size: (await stat(file)).size })));
}
