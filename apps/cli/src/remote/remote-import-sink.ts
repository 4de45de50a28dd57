import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { readJsonlFrom, type JsonlCursor } from "@evotrainer/contract";
import { headHash } from "@evotrainer/db/ingest";
import { byteProgress } from "../byte-progress.ts";
import type { ImportSink, StagedSource, SourcesIngested } from "../import-sink.ts";
import { stagedText } from "../staged-rollouts.ts";
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
  const staging = mkdtempSync(join(tmpdir(), "evotrainer-upload-"));
  let staged = 0;
  /** One source, in batches from where the server's cursor stands. */
  async function sendSource(target: { jobId: string }, source: StagedSource) {
    const file = join(staging, `${staged++}.jsonl`);
    const text = stagedText(source.lines);
    writeFileSync(file, text);
    const size = Buffer.byteLength(text);
    const progress = byteProgress(source.label, size);
    const ask = { jobId: target.jobId, source: source.source };
    // Where the server stands, if it read this same text that far; else from the start.
    const resumeAt = async (saved: JsonlCursor & { headHash: string | null }) =>
      saved.byteOffset > 0 && saved.byteOffset <= size && saved.headHash === (await headHash(file, saved.byteOffset)) ? saved : null;
    const saved = await call((a) => a.import.cursor.query(ask));
    let from: JsonlCursor = (await resumeAt(saved)) ?? { byteOffset: 0, lineNumber: 0 };
    const result = { inserted: 0, duplicates: 0, quarantined: 0, rewritten: saved.byteOffset > 0 && from.byteOffset === 0 };
    for (;;) {
      const tail = await readJsonlFrom(file, { ...from, maxBytes: BATCH_BYTES });
      const unreadable = from.byteOffset === 0 ? source.unreadable : [];
      if (tail.nextOffset === from.byteOffset && unreadable.length === 0) break;
      const next = { byteOffset: tail.nextOffset, lineNumber: tail.nextLineNumber, headHash: await headHash(file, tail.nextOffset) };
      const lines = tail.lines.map(({ lineNumber, text, invalidUtf8 }) => ({ lineNumber, text, invalidUtf8 }));
      const stored = await call((a) => a.import.append.mutate({ ...ask, from, next, lines, unreadable: [...unreadable] }));
      if (stored.outcome === "cursor_moved") {
        // Another upload of the same source got there first: go on from where it left off.
        from = (await resumeAt(stored.cursor)) ?? { byteOffset: 0, lineNumber: 0 };
        continue;
      }
      result.inserted += stored.inserted;
      result.duplicates += stored.duplicates;
      result.quarantined += stored.quarantined;
      from = next;
      progress(from.byteOffset);
      if (!tail.hasMore) break;
    }
    progress(from.byteOffset, true);
    return result;
  }

  return {
    destination: credentials.server,
    // Another machine's same path is another import.
    target: (request) => call((a) => a.import.begin.mutate({ ...request, dir: `${hostname()}:${request.dir}` })),
    async rollouts(target, sources) {
      const total: SourcesIngested = { inserted: 0, duplicates: 0, quarantined: 0, rewritten: [] };
      for await (const source of sources) {
        const one = await sendSource(target, source);
        total.inserted += one.inserted;
        total.duplicates += one.duplicates;
        total.quarantined += one.quarantined;
        if (one.rewritten) total.rewritten.push(source.source);
      }
      return total;
    },
    metrics: (target, steps) => call((a) => a.import.metrics.mutate({ jobId: target.jobId, steps: [...steps] })),
    summary: (target, sources) => call((a) => a.import.summary.query({ jobId: target.jobId, sources: [...sources] })),
    close: async () => rmSync(staging, { recursive: true, force: true }),
  };
}
