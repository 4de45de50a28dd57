import { hostname } from "node:os";
import { TRPC_BODY_LIMIT_BYTES } from "@evotrainer/api/body-limit";
import { sourceParts, type SourcePart } from "@evotrainer/db/ingest";
import { byteProgress, type ByteProgress } from "../byte-progress.ts";
import { mib } from "../file-lines.ts";
import type { ImportSink, StagedSource, SourcesIngested } from "../import-sink.ts";
import type { Credentials } from "./credentials.ts";
import { remoteApi, remoteError, type RemoteApi } from "./remote-api.ts";

// Well under what a proxy in front of the dashboard takes in one request, once escaped as JSON.
const BATCH_BYTES = 2 * 1024 * 1024;
// The longest line one request carries, escaped as JSON: the server's body limit, less room for the request's other fields.
const MAX_LINE_JSON_BYTES = TRPC_BODY_LIMIT_BYTES - 64 * 1024;

/**
 * A part's lines as one request sends them; a line that no request to `server` can carry is
 * quarantined at its line, with its size, rather than stopping the import.
 */
function requestLines(part: SourcePart, server: string) {
  const lines: { lineNumber: number; text: string; invalidUtf8: boolean }[] = [];
  const tooLarge: { lineNumber: number; reason: string; raw: string }[] = [];
  for (const { lineNumber, text, invalidUtf8 } of part.lines) {
    // Escaping grows a line at most sixfold (\\u0000): only a line that could then pass the limit is measured as sent.
    const bytes = Buffer.byteLength(text);
    const sent = bytes * 6 < MAX_LINE_JSON_BYTES ? bytes : Buffer.byteLength(JSON.stringify(text));
    if (sent <= MAX_LINE_JSON_BYTES) lines.push({ lineNumber, text, invalidUtf8 });
    else tooLarge.push({ lineNumber, reason: `the line is ${mib(bytes)}, and ${server} takes at most ${mib(MAX_LINE_JSON_BYTES)} in one request: import it beside the server's database (\`evotrainer logout\`, then \`evotrainer import\`)`, raw: text.slice(0, 2_000) });
  }
  return { lines, unreadable: [...(part.unreadable ?? []), ...tooLarge] };
}

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
    const result = { inserted: 0, duplicates: 0, quarantined: 0, resultsChanged: 0, rewritten: resumed.rewritten };
    let parts = resumed.parts;
    for (let i = 0; i < parts.length; ) {
      const part = parts[i]!;
      const stored = await call((a) => a.import.append.mutate({ ...ask, from: part.from, next: part.next, ...requestLines(part, credentials.server) }));
      if (stored.outcome === "cursor_moved") {
        // Another upload of the same source got there first: go on from where it left off.
        parts = sourceParts(source, stored.cursor, BATCH_BYTES).parts;
        i = 0;
        continue;
      }
      result.inserted += stored.inserted;
      result.duplicates += stored.duplicates;
      result.quarantined += stored.quarantined;
      result.resultsChanged += stored.resultsChanged;
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
      const total: SourcesIngested = { inserted: 0, duplicates: 0, quarantined: 0, resultsChanged: 0, rewritten: [] };
      const progress = byteProgress();
      for await (const source of sources) {
        const one = await sendSource(target, source, progress);
        total.inserted += one.inserted;
        total.duplicates += one.duplicates;
        total.quarantined += one.quarantined;
        total.resultsChanged += one.resultsChanged;
        if (one.rewritten) total.rewritten.push(source.source);
      }
      progress.end();
      return total;
    },
    metrics: (target, steps) => call((a) => a.import.metrics.mutate({ jobId: target.jobId, steps: [...steps] })),
    summary: (target, sources) => call((a) => a.import.summary.query({ jobId: target.jobId, sources: [...sources] })),
    discard: (target) => call((a) => a.import.discard.mutate({ jobId: target.jobId })),
    close: async () => {},
  };
}
