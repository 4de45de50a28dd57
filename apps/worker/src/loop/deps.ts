import type pg from "pg";
import type { TrainerAdapter } from "@evotrainer/adapters";
import type { LockedEvaluation, Proposer } from "@evotrainer/core";
import type { Database } from "@evotrainer/db";
import type { LabelerPool } from "@evotrainer/db/ingest";
import type { Executor } from "@evotrainer/executors";
import type { Producer } from "@evotrainer/queue";
import type { HarnessCache } from "./harness-cache.ts";

/** Everything the loop's steps need, built once per worker process. */
export interface LoopDeps {
  db: Database;
  /** Raw connections for COPY-based ingest. */
  pool: pg.Pool;
  producer: Producer;
  executor: Executor;
  adapters: Record<"gym", TrainerAdapter>;
  /** The run's proposer; it needs the run's locked evaluation to check its own proposals. */
  proposerFor: (lockedEvaluation: LockedEvaluation) => Proposer;
  harnesses: HarnessCache;
  /** Worker threads that run the detectors on ingested rollouts. */
  labelers: LabelerPool;
  log: (line: string) => void;
  /** How long a running job waits between two monitor passes. */
  monitorEveryMs: number;
}
