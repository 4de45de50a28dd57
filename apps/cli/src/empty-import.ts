import type { ImportTarget } from "@evotrainer/db";
import type { ImportSink } from "./import-sink.ts";

/**
 * After a new import stored nothing (every line quarantined, or nothing to read): lists why, takes
 * back the run or branch it created, so nothing empty is left behind, and says so. The exit code
 * to end with; null where the import stored something or landed in what existed before.
 */
export async function endEmptyImport(sink: ImportSink, target: ImportTarget, stored: number, sources: readonly string[], what: string): Promise<number | null> {
  if (!target.created || stored > 0) return null;
  const { quarantined } = await sink.summary(target, sources);
  if (!(await sink.discard(target))) return null;
  console.error(`${what}: nothing was stored${quarantined.length > 0 ? `; every line was quarantined:` : ""}`);
  for (const q of quarantined) console.error(`  ${q.source}:${q.lineNumber}: ${q.reason}`);
  console.error(`${what}: so no run or branch was created in ${sink.destination}; fix the lines above and run the same command again`);
  return 1;
}
