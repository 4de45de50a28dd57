import { z } from "zod";
import { readJsonFile, writeJsonFile } from "./json-file.ts";
import { paths } from "./paths.ts";

/** `checkpoints/latest.json`: where the newest complete checkpoint is, written after it is saved. */
export const checkpointSchema = z.object({
  step: z.number().int().nonnegative(),
  // Relative paths resolve against the output dir, so the dir can be moved or synced as a whole.
  path: z.string().min(1),
  createdAt: z.iso.datetime({ offset: true }),
});
export type Checkpoint = z.infer<typeof checkpointSchema>;

const what = "evo.job/v1 checkpoint pointer";

export function writeCheckpoint(outputDir: string, checkpoint: Checkpoint): Promise<Checkpoint> {
  return writeJsonFile(paths(outputDir).latestCheckpoint, checkpointSchema, checkpoint, what);
}

/** `null` until the first checkpoint; a preempted job resumes from this one. */
export function readCheckpoint(outputDir: string): Promise<Checkpoint | null> {
  return readJsonFile(paths(outputDir).latestCheckpoint, checkpointSchema, what);
}
