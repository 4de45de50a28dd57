import type pg from "pg";
import type { TrainerAdapter } from "@evotrainer/adapters";
import type { Database } from "@evotrainer/db";
import type { LabelerPool } from "@evotrainer/db/ingest";
import type { Producer } from "@evotrainer/queue";
import type { ExecutorPool } from "../executors/executor-pool.ts";
import type { Failpoint } from "../failpoints.ts";
import type { HarnessCache } from "./harness-cache.ts";
import type { ProposerFactory } from "./proposer-factory.ts";

/** Everything the loop's steps need, built once per worker process. */
export interface LoopDeps {
  db: Database;
  /** Raw connections for COPY-based ingest. */
  pool: pg.Pool;
  producer: Producer;
  /** Finds the executor of a job (local, its SSH node) and where its files are mirrored. */
  executors: ExecutorPool;
  adapters: Record<TrainerAdapter["name"], TrainerAdapter>;
  /** The round's proposer: rule-based, or the LLM proposer for a run that asks for it. */
  proposerFor: ProposerFactory;
  harnesses: HarnessCache;
  /** Worker threads that run the detectors on ingested rollouts. */
  labelers: LabelerPool;
  log: (line: string) => void;
  /** How long a running job waits between two monitor passes. */
  monitorEveryMs: number;
  /** How long a trainer that writes heartbeats may stay silent before its job counts as hung. */
  heartbeatStaleMs: number;
  /** A moment a crash test may stop the worker at; a no-op otherwise. */
  failpoint: Failpoint;
}
