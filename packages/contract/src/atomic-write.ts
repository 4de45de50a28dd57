import { randomBytes } from "node:crypto";
import { mkdir, open, rename, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

/**
 * Replaces `file` with `data` so that a concurrent reader sees either the old or the new content,
 * never a prefix: the data goes to a temporary file in the same directory (rename is only atomic
 * within one file system), is flushed to disk, then renamed over the target. The temporary name
 * starts with a dot and matches no contract path, so directory listings and the path parser skip it.
 */
export async function writeFileAtomic(file: string, data: string): Promise<void> {
  const dir = dirname(file);
  await mkdir(dir, { recursive: true });
  const temp = join(dir, `.${basename(file)}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`);
  try {
    const handle = await open(temp, "w");
    try {
      await handle.writeFile(data, "utf8");
      // Without the flush a crash right after the rename can leave an empty file under the real name.
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}
