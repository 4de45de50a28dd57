import { readdir, stat } from "node:fs/promises";

/** Names in `dir` matching `pattern`; none when `dir` is missing or not a directory. */
export async function matchingNames(dir: string, pattern: RegExp): Promise<string[]> {
  const names = await readdir(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT" || error.code === "ENOTDIR") return [] as string[];
    throw error;
  });
  return names.filter((name) => pattern.test(name));
}

/** The first of `files` that exists as a regular file. */
export async function firstFile(files: readonly string[]): Promise<string | undefined> {
  for (const file of files) {
    if (await stat(file).then((s) => s.isFile(), () => false)) return file;
  }
  return undefined;
}
