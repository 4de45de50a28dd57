import { appendFile, mkdir, rename, stat, writeFile } from "node:fs/promises";
import { dirname, join, posix } from "node:path";
import { parseContractPath } from "@evotrainer/contract";
import type { Executor, JobHandle } from "@evotrainer/executors";

const CHUNK_BYTES = 4 * 1024 * 1024;
const appendOnly = new Set(["rollouts", "metrics"]);

/**
 * Pulls what a job on another machine wrote since the last pass into `localDir`: append-only JSONL
 * files (rollouts, metrics) by byte offset, so only new bytes cross the network and a pass cut short
 * (a dropped connection, a worker crash) resumes where the mirror ends; the small JSON files (status,
 * checkpoint pointer, eval results) whole, since trainers replace them. Checkpoint payloads stay on
 * the node. Returns the number of bytes pulled.
 */
export async function mirrorOutputs(executor: Executor, handle: JobHandle, localDir: string): Promise<number> {
  let pulled = 0;
  for (const file of await executor.list(handle, "output")) {
    const relative = posix.relative("output", file.path);
    const kind = parseContractPath(relative)?.kind;
    if (!kind || kind === "job") continue;
    const target = join(localDir, "output", relative);
    await mkdir(dirname(target), { recursive: true });
    if (!appendOnly.has(kind)) {
      const content = await executor.readFrom(handle, file.path, 0, file.size);
      await writeFile(`${target}.part`, content);
      await rename(`${target}.part`, target);
      pulled += content.length;
      continue;
    }
    let offset = await stat(target).then((s) => s.size, () => 0);
    if (file.size < offset) {
      throw new Error(`${file.path} on the node is ${file.size} bytes, shorter than the ${offset} already pulled: the job rewrote an append-only file`);
    }
    while (offset < file.size) {
      const chunk = await executor.readFrom(handle, file.path, offset, Math.min(CHUNK_BYTES, file.size - offset));
      if (chunk.length === 0) break;
      await appendFile(target, chunk);
      offset += chunk.length;
      pulled += chunk.length;
    }
  }
  return pulled;
}
