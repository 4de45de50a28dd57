import { hostname } from "node:os";
import { sourceParts } from "@evotrainer/db/ingest";
import { byteProgress, type ByteProgress } from "../byte-progress.ts";
import type { ImportSink, StagedSource, SourcesIngested } from "../import-sink.ts";
import type { Credentials } from "./credentials.ts";
import { remoteApi, remoteError, type RemoteApi } from "./remote-api.ts";

// Well under what a proxy in front of the dashboard takes in one request, once escaped as JSON.
const BATCH_BYTES = 2 * 1024 * 1024;

/**
 * Imports into the server the CLI is logged in to: files are read and converted here, and their lines
 * go to the server in batches, each stored there with its cursor in one transaction. A batch cut
 * off, or the command run again, goes on from the server's cursor; a source that changed since is
 * sent again from its start, and rows already there are skipped by their uid.
 */
export function remoteImportSink(credentials: Credentials): ImportSink {
  const api = remoteApi(credentials);
  const call = async <T>(fn: (api: RemoteApi) => Promise<T>): Promise<T> => {
    try {
      return await fn(api);
    } catch (error) {
      throw remoteError(credentials.server, error);
    }
  };
  /** One source, in batches from where the server's cursor stands (cut as local ingest cuts its transactions). */
  async function sendSource(target: { jobId: string }, source: StagedSource, progress: ByteProgress) {
    const ask = { jobId: target.jobId, source: source.source };
    // Where the server stands, if it read this same text that far; else from the start.
    const resumed = sourceParts(source, await call((a) => a.import.cursor.query(ask)), BATCH_BYTES);
    const result = { inserted: 0, duplicates: 0, quarantined: 0, rewritten: resumed.rewritten };
    let parts = resumed.parts;
    for (let i = 0; i < parts.length; ) {
      const part = parts[i]!;
      const lines = part.lines.map(({ lineNumber, text, invalidUtf8 }) => ({ lineNumber, text, invalidUtf8 }));
      const stored = await call((a) => a.import.append.mutate({ ...ask, from: part.from, next: part.next, lines, unreadable: [...(part.unreadable ?? [])] }));
      if (stored.outcome === "cursor_moved") {
        // Another upload of the same source got there first: go on from where it left off.
        parts = sourceParts(source, stored.cursor, BATCH_BYTES).parts;
        i = 0;
        continue;
      }
      result.inserted += stored.inserted;
      result.duplicates += stored.duplicates;
      result.quarantined += stored.quarantined;
      if (part.next.byteOffset < resumed.size) progress.show(source.label, part.next.byteOffset, resumed.size);
      i += 1;
    }
    // Read to its end, by this upload or by another that moved the cursor.
    progress.show(source.label, resumed.size, resumed.size);
    return result;
  }

  return {
    destination: credentials.server,
    // Another machine's same path is another import.
    target: (request) => call((a) => a.import.begin.mutate({ ...request, dir: `${hostname()}:${request.dir}` })),
    async rollouts(target, sources) {
      const total: SourcesIngested = { inserted: 0, duplicates: 0, quarantined: 0, rewritten: [] };
      const progress = byteProgress();
      for await (const source of sources) {
        const one = await sendSource(target, source, progress);
        total.inserted += one.inserted;
        total.duplicates += one.duplicates;
        total.quarantined += one.quarantined;
        if (one.rewritten) total.rewritten.push(source.source);
      }
      progress.end();
      return total;
    },
    metrics: (target, steps) => call((a) => a.import.metrics.mutate({ jobId: target.jobId, steps: [...steps] })),
    summary: (target, sources) => call((a) => a.import.summary.query({ jobId: target.jobId, sources: [...sources] })),
    close: async () => {},
  };
}
