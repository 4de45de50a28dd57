import type { RunDirFile } from "./run-dir-source.ts";

/**
 * A trainer file's rows as a contract rollouts JSONL text that ingest can read, with every row on
 * the line it had in the trainer's file: an unreadable line is kept as it was (ingest quarantines
 * it as invalid JSON), and lines with nothing are left empty, so ingest's quarantined line numbers
 * are the trainer file's and a person can open it there.
 */
export function stagedRolloutsJsonl(file: RunDirFile): string {
  const lines: string[] = [];
  for (const { lineNumber, rollout } of file.rows) lines[lineNumber - 1] = JSON.stringify(rollout);
  for (const { lineNumber, raw } of file.unreadable) lines[lineNumber - 1] = raw;
  return Array.from(lines, (line) => line ?? "").join("\n") + (lines.length > 0 ? "\n" : "");
}
