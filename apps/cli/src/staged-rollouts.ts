import { rolloutJson } from "./rollout-json.ts";
import type { RunDirFile } from "./run-dir-source.ts";

/**
 * A trainer file's rows as contract rollouts JSONL lines that ingest can read (with the rows they are
 * the JSON of), every row on the line it had in the trainer's file: an unreadable line is kept as it
 * was (ingest quarantines it as invalid JSON), and lines with nothing are left empty, so ingest's
 * quarantined line numbers are the trainer file's and a person can open it there.
 */
export function stagedRolloutLines(file: RunDirFile): { lines: string[]; values: unknown[] } {
  const lines: string[] = [];
  // Ingest validates the rows themselves rather than parsing their JSON again.
  const values: unknown[] = [];
  for (const { lineNumber, rollout } of file.rows) {
    lines[lineNumber - 1] = rolloutJson(rollout);
    values[lineNumber - 1] = rollout;
  }
  for (const { lineNumber, raw } of file.unreadable) lines[lineNumber - 1] = raw;
  return { lines: Array.from(lines, (line) => line ?? ""), values };
}
