import { rolloutJsonPieces, ropeOf, type RolloutJson } from "./rollout-json.ts";
import type { RunDirFile } from "./run-dir-source.ts";

/**
 * A trainer file's rows as contract rollouts JSONL lines that ingest can read (with the rows they are
 * the JSON of, and the pieces each line is made of), every row on the line it had in the trainer's
 * file: an unreadable line is kept as it was (ingest quarantines it as invalid JSON), and lines with
 * nothing are left empty, so ingest's quarantined line numbers are the trainer file's and a person
 * can open it there.
 */
export function stagedRolloutLines(file: RunDirFile): { lines: string[]; values: unknown[]; pieces: (string[] | undefined)[]; json: RolloutJson["fields"][] } {
  const lines: string[] = [];
  // Ingest validates the rows themselves rather than parsing their JSON again, and measures the
  // lines from their pieces rather than reading them (see TextSource.pieces).
  const values: unknown[] = [];
  const pieces: (string[] | undefined)[] = [];
  // And the JSON of its trajectory and extra, which ingest stores rather than writing them again.
  const json: RolloutJson["fields"][] = [];
  for (const { lineNumber, rollout } of file.rows) {
    const written = rolloutJsonPieces(rollout);
    lines[lineNumber - 1] = ropeOf(written.pieces);
    values[lineNumber - 1] = rollout;
    pieces[lineNumber - 1] = written.pieces;
    json[lineNumber - 1] = written.fields;
  }
  for (const { lineNumber, raw } of file.unreadable) lines[lineNumber - 1] = raw;
  return { lines: Array.from(lines, (line) => line ?? ""), values, pieces, json };
}
