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

/** A thread says `ready` once it has loaded the harness code, then answers each request by its id. */
export type LabelResponse = { ready: true } | { id: number; labels: Label[] } | { id: number; error: string };

interface Thread {
  worker: Worker;
  ready: boolean;
  started: Promise<void>;
  known: Set<string>;
  pending: Map<number, { resolve: (labels: Label[]) => void; reject: (error: Error) => void }>;
}

/** Where a built program (scripts/bundle-node.mjs) runs from; undefined where this runs as TypeScript. */
declare const EVO_BUNDLE_URL: string | undefined;

/**
 * A built program starts the thread's built entry, which it emits beside itself. Run as TypeScript,
 * a thread registers tsx's loader itself, then imports its TypeScript entry: a thread does not
 * inherit the loader hooks of the process that started it. Resolved when a pool starts, not on
 * import, so a process that never labels in threads (the dashboard, bundled) never looks for tsx.
 */
function threadBootstrap(): URL {
  if (typeof EVO_BUNDLE_URL === "string") return new URL("./label-thread.js", EVO_BUNDLE_URL);
  const require = createRequire(import.meta.url);
  const tsxApi = pathToFileURL(join(dirname(require.resolve("tsx/package.json")), "dist/esm/api/index.mjs")).href;
  const threadEntry = new URL("./label-thread.ts", import.meta.url).href;
  return new URL(`data:text/javascript,${encodeURIComponent(`import { register } from ${JSON.stringify(tsxApi)}; register(); await import(${JSON.stringify(threadEntry)});`)}`);
}

/**
 * Detector evaluation in worker threads: a batch is split across the threads and labelled in
 * parallel, each thread compiling a harness version once. One pool per process, one thread per core
 * but one: the ingesting thread and Postgres need a core too, and on a small machine a thread more
 * than that only takes CPU from them (a thread also costs about a second of CPU to start, loading
 * the harness code).
 */
export class LabelerPool {
  private readonly threads: Thread[];
  private nextId = 0;

  constructor(size = Math.max(1, availableParallelism() - 1)) {
    const bootstrap = threadBootstrap();
    this.threads = Array.from({ length: size }, () => {
      const worker = new Worker(bootstrap);
      let started!: () => void;
      const thread: Thread = { worker, ready: false, started: new Promise((resolve) => (started = resolve)), known: new Set(), pending: new Map() };
      worker.on("message", (response: LabelResponse) => {
        if ("ready" in response) {
          thread.ready = true;
          started();
          return;
        }
        const waiting = thread.pending.get(response.id);
        thread.pending.delete(response.id);
        if ("error" in response) waiting?.reject(new Error(response.error));
        else waiting?.resolve(response.labels);
      });
      worker.on("error", (error) => {
        started();
        for (const waiting of thread.pending.values()) waiting.reject(error);
        thread.pending.clear();
      });
      return thread;
    });
  }

  /** Settles once every thread has loaded the harness code (or failed to start). */
  async ready(): Promise<void> {
    await Promise.all(this.threads.map((t) => t.started));
  }

  get size(): number {
    return this.threads.length;
  }

  /**
   * Whether a thread has started and has nothing to do: a caller that can label itself does so
   * otherwise, rather than wait for a thread still starting or queue behind one at work.
   */
  get idle(): boolean {
    return this.threads.some((t) => t.ready && t.pending.size === 0);
  }

  /** Labels `rollouts` with the harness version `harnessKey` (its definition sent once per thread). */
  async label(harnessKey: string, definition: HarnessDefinition, domain: Domain, maxResponseTokens: number, rollouts: readonly Rollout[]): Promise<Label[]> {
    // Idle threads take it all; else started ones; threads still starting queue it only if none has started.
    const idle = this.threads.filter((t) => t.ready && t.pending.size === 0);
    const started = this.threads.filter((t) => t.ready);
    const threads = idle.length > 0 ? idle : started.length > 0 ? started : this.threads;
    const size = Math.ceil(rollouts.length / threads.length);
    const parts = await Promise.all(
      threads.map((thread, i) => {
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
