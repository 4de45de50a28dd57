import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { databaseEnvSchema, loadEnv } from "@evotrainer/db";
import { redisEnvSchema } from "@evotrainer/queue";

const defaultJobsDir = resolve(fileURLToPath(new URL("../../..", import.meta.url)), ".evotrainer/jobs");

export const workerEnvSchema = databaseEnvSchema.extend(redisEnvSchema.shape).extend({
  EVO_RECONCILE_EVERY_MS: z.coerce.number().int().min(1_000).default(15_000),
  EVO_MONITOR_EVERY_MS: z.coerce.number().int().min(50).default(1_000),
  // Where the local executor gives each job its own directory.
  EVO_JOBS_DIR: z.string().min(1).default(defaultJobsDir),
  // How often a job waiting for a free GPU slot on the SSH nodes tries again.
  EVO_PLACEMENT_EVERY_MS: z.coerce.number().int().min(50).default(5_000),
  // A trainer that writes heartbeat.json and then stays silent this long is cancelled as hung, and retried.
  EVO_HEARTBEAT_STALE_MS: z.coerce.number().int().min(1_000).default(600_000),
  // The dashboard's address as webhook receivers reach it: notifications deep-link into it.
  EVO_PUBLIC_URL: z.url().default("http://localhost:3000"),
  // Webhook retries wait this × 2^n; tests shorten it.
  EVO_NOTIFY_RETRY_BASE_MS: z.coerce.number().int().min(1).default(30_000),
  // after-run: once a run ends, delete the weights of its branches that were neither promoted nor best
  // (docs/retention.md); manual: only `evotrainer gc --yes` deletes them.
  EVO_RETENTION: z.enum(["after-run", "manual"]).default("after-run"),
  EVO_WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(4),
  // GET /health for an orchestrator's probe (health-server.ts); no server without it, 0 picks a free port.
  EVO_WORKER_HEALTH_PORT: z.coerce.number().int().min(0).max(65_535).optional(),
  // Loopback unless asked: the answer names the database's and Redis's addresses.
  EVO_WORKER_HEALTH_HOST: z.string().min(1).default("127.0.0.1"),
  // Crash tests only: stop at the n-th time the worker reaches a named point (see failpoints.ts).
  EVO_FAILPOINT: z.string().regex(/^[a-z:-]+:\d+(,[a-z:-]+:\d+)*$/).optional(),
  EVO_FAILPOINT_FILE: z.string().min(1).optional(),
});

export type WorkerEnv = z.infer<typeof workerEnvSchema>;

export const loadWorkerEnv = (source: Record<string, string | undefined> = process.env): WorkerEnv =>
  loadEnv(workerEnvSchema, source, "worker");
