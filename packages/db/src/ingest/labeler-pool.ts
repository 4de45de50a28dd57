import { availableParallelism } from "node:os";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import type { Domain, HarnessDefinition, Label } from "@evotrainer/core";
import type { Rollout } from "@evotrainer/contract";

export interface LabelRequest {
  id: number;
  harnessKey: string;
  /** Sent the first time a thread sees a harness version; threads compile and keep it. */
  definition?: HarnessDefinition;
  domain: Domain;
  maxResponseTokens: number;
  rollouts: readonly Rollout[];
}

export type LabelResponse = { id: number; labels: Label[] } | { id: number; error: string };

interface Thread {
  worker: Worker;
  known: Set<string>;
  pending: Map<number, { resolve: (labels: Label[]) => void; reject: (error: Error) => void }>;
}

/**
 * A thread registers tsx's loader itself, then imports its TypeScript entry: a thread does not
 * inherit the loader hooks of the process that started it. Resolved when a pool starts, not on
 * import, so a process that never labels in threads (the dashboard, bundled) never looks for tsx.
 */
function threadBootstrap(): URL {
  const require = createRequire(import.meta.url);
  const tsxApi = pathToFileURL(join(dirname(require.resolve("tsx/package.json")), "dist/esm/api/index.mjs")).href;
  const threadEntry = new URL("./label-thread.ts", import.meta.url).href;
  return new URL(`data:text/javascript,${encodeURIComponent(`import { register } from ${JSON.stringify(tsxApi)}; register(); await import(${JSON.stringify(threadEntry)});`)}`);
}

/**
 * Detector evaluation in worker threads: a batch is split across the threads and labelled in
 * parallel, each thread compiling a harness version once. One pool per process.
 */
export class LabelerPool {
  private readonly threads: Thread[];
  private nextId = 0;

  constructor(size = Math.max(1, availableParallelism())) {
    const bootstrap = threadBootstrap();
    this.threads = Array.from({ length: size }, () => {
      const worker = new Worker(bootstrap);
      const thread: Thread = { worker, known: new Set(), pending: new Map() };
      worker.on("message", (response: LabelResponse) => {
        const waiting = thread.pending.get(response.id);
        thread.pending.delete(response.id);
        if ("error" in response) waiting?.reject(new Error(response.error));
        else waiting?.resolve(response.labels);
      });
      worker.on("error", (error) => {
        for (const waiting of thread.pending.values()) waiting.reject(error);
        thread.pending.clear();
      });
      return thread;
    });
  }

  /** Labels `rollouts` with the harness version `harnessKey` (its definition sent once per thread). */
  async label(harnessKey: string, definition: HarnessDefinition, domain: Domain, maxResponseTokens: number, rollouts: readonly Rollout[]): Promise<Label[]> {
    const size = Math.ceil(rollouts.length / this.threads.length);
    const parts = await Promise.all(
      this.threads.map((thread, i) => {
        const chunk = rollouts.slice(i * size, (i + 1) * size);
        if (chunk.length === 0) return Promise.resolve([] as Label[]);
        const id = this.nextId++;
        const request: LabelRequest = { id, harnessKey, domain, maxResponseTokens, rollouts: chunk, ...(thread.known.has(harnessKey) ? {} : { definition }) };
        thread.known.add(harnessKey);
        return new Promise<Label[]>((resolve, reject) => {
          thread.pending.set(id, { resolve, reject });
          thread.worker.postMessage(request);
        });
      }),
    );
    return parts.flat();
  }

  async close(): Promise<void> {
    await Promise.all(this.threads.map((t) => t.worker.terminate()));
  }
}
