import pg from "pg";
import { gymAdapter, trlAdapter, verlAdapter } from "@evotrainer/adapters";
import { LabelerPool } from "@evotrainer/db/ingest";
import { RuleBasedProposer } from "@evotrainer/proposers";
import type { ExecutorPool } from "../../apps/worker/src/executors/executor-pool.ts";
import type { LoopDeps } from "../../apps/worker/src/loop/deps.ts";
import { HarnessCache } from "../../apps/worker/src/loop/harness-cache.ts";
import { apiHarness } from "./api-harness.ts";

/**
 * For tests that call the worker's loop steps (dispatch, stop…) directly, as the queue would: the
 * API harness plus the pool and labelers a worker holds, and the loop's dependencies over them.
 */
export async function loopHarness(serverUrl: string, redisUrl: string) {
  const api = await apiHarness(serverUrl, redisUrl);
  const pool = new pg.Pool({ connectionString: api.database.url, max: 2 });
  const labelers = new LabelerPool(1);
  return {
    ...api,
    pool,
    labelers,
    /** The worker's dependencies with these executors; a test may replace any but the connections. */
    depsWith(executors: ExecutorPool, options: Partial<Omit<LoopDeps, "db" | "pool" | "producer" | "labelers" | "executors">> = {}): LoopDeps {
      return {
        db: api.db,
        pool,
        producer: api.producer,
        executors,
        adapters: { gym: gymAdapter(), verl: verlAdapter(), trl: trlAdapter() },
        proposerFor: (lockedEvaluation) => new RuleBasedProposer({ lockedEvaluation }),
        harnesses: new HarnessCache(api.db),
        labelers,
        log: () => {},
        monitorEveryMs: 1_000,
        heartbeatStaleMs: 60_000,
        failpoint: async () => {},
        ...options,
      };
    },
    async close() {
      await labelers.close();
      await pool.end();
      await api.close();
    },
  };
}
