import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { alreadyPresentText } from "../already-present.ts";
import { readFileLines, tooLongReason, MAX_LINE_BYTES } from "../file-lines.ts";
import { openImportSink } from "../open-import-sink.ts";

/**
 * `evotrainer ingest <file.jsonl> --branch <id>`: loads rollouts written elsewhere into a branch,
 * labelled by the run's harness. Bad lines are quarantined and listed; running it again adds nothing.
 * Logged in to a server, the file is read here and its rows stored there.
 */
export async function ingestCommand(args: string[]): Promise<number> {
  const file = args.find((a, i) => !a.startsWith("--") && args[i - 1] !== "--branch");
  const branchId = args[args.indexOf("--branch") + 1];
  if (!file || args.indexOf("--branch") < 0 || !branchId) throw new Error("usage: evotrainer ingest <file.jsonl> --branch <branchId>");
  const path = resolve(file);
  if (!existsSync(path)) throw new Error(`${file}: no such file`);
  // A last line without its "\n" may still be being written: it waits for the next ingest.
  const { lines, tooLong } = readFileLines(path);
  const unreadable = tooLong.map(({ lineNumber, bytes }) => ({ lineNumber, reason: tooLongReason(bytes, MAX_LINE_BYTES), raw: "" }));
  const sink = openImportSink();
  try {
    const target = await sink.target({ dir: path, into: { branchId } });
    const result = await sink.rollouts(target, [{ source: path, lines, unreadable, label: "ingest" }]);
    if (result.rewritten.length > 0) console.log(`ingest: ${file} changed since it was last read; it was read again from the start (rows already present were kept, with the file's results where they changed)`);
    console.log(`ingest: ${result.inserted} rollouts added, ${alreadyPresentText(result.duplicates, result.resultsChanged)}, ${result.quarantined} lines quarantined`);
    for (const line of (await sink.summary(target, [path])).quarantined) console.log(`  ${path}:${line.lineNumber}: ${line.reason}`);
    return 0;
  } finally {
    await sink.close();
  }
}
