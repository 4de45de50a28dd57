import { lstat, readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import type { WeightsEntry, WeightsFiles, WeightsPlace } from "../job-weights.ts";

const gone = (error: unknown) => (error as NodeJS.ErrnoException).code === "ENOENT";

async function entry(path: string): Promise<WeightsEntry | null> {
  try {
    const info = await lstat(path);
    return { directory: info.isDirectory(), size: info.size };
  } catch (error) {
    if (gone(error)) return null;
    throw error;
  }
}

/** Retention's file operations on this machine's file system. */
export const localWeightsFiles: WeightsFiles = {
  lstat: entry,
  async readdir(path) {
    const names = await readdir(path).catch((error: unknown) => {
      if (gone(error) || (error as NodeJS.ErrnoException).code === "ENOTDIR") return [] as string[];
      throw error;
    });
    const entries = await Promise.all(names.map(async (name) => ({ name, found: await entry(join(path, name)) })));
    return entries.flatMap(({ name, found }) => (found ? [{ name, ...found }] : []));
  },
  remove: (path) => rm(path, { recursive: true, force: true, maxRetries: 3 }),
};

/** A job directory on this machine (a local job's). */
export function localWeightsPlace(workDir: string): WeightsPlace {
  return { files: localWeightsFiles, outputDir: join(workDir, "output") };
}
