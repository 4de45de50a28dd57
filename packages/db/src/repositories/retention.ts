import { RETENTION_DUE_RUN_STATUSES, type RetentionFacts, type RunStatus } from "@evotrainer/core";
import type { Database } from "../client.ts";
import { recordEvent } from "./events.ts";

/** Interventions that may still become branches: their parents' weights are needed. */
const PENDING_INTERVENTION_STATUSES = ["proposed", "backtested", "selected"] as const;

export interface RetentionJob {
  branchId: string;
  branchVersion: number;
  jobId: string;
  executor: "local" | "ssh" | "kubernetes" | "slurm";
  /** Where the job ran: a local work dir, or a node's path for ssh and Kubernetes. */
  outputUri: string;
  /** The SSH node or Kubernetes pool that ran it. */
  nodeId: string | null;
  nodeName: string | null;
}

export interface RetentionState {
  runId: string;
  runName: string;
  runStatus: RunStatus;
  facts: RetentionFacts;
  jobs: RetentionJob[];
}

/** What the retention policy reads of a run, and every launched job's directory; null for an unknown run. */
export async function loadRetentionState(db: Database, runId: string): Promise<RetentionState | null> {
  const run = await db.run.findUnique({
    where: { id: runId },
    select: {
      id: true,
      name: true,
      status: true,
      bestBranchId: true,
      branches: { select: { id: true, version: true, status: true, parentId: true, jobs: { where: { outputUri: { not: null } }, select: { id: true, executor: true, outputUri: true, node: { select: { id: true, name: true } } } } } },
      interventions: { where: { status: { in: [...PENDING_INTERVENTION_STATUSES] }, branch: { is: null } }, select: { parentBranchId: true } },
    },
  });
  if (!run) return null;
  return {
    runId: run.id,
    runName: run.name,
    runStatus: run.status,
    facts: {
      bestBranchId: run.bestBranchId,
      branches: run.branches.map(({ id, status, parentId }) => ({ id, status, parentId })),
      proposalParentIds: run.interventions.map((i) => i.parentBranchId),
    },
    jobs: run.branches.flatMap((b) => b.jobs.map((j) => ({ branchId: b.id, branchVersion: b.version, jobId: j.id, executor: j.executor, outputUri: j.outputUri!, nodeId: j.node?.id ?? null, nodeName: j.node?.name ?? null }))),
  };
}

export interface RetentionRecord {
  runId: string;
  /** `run_end`: the worker, once the run ended; `gc`: a person's `evotrainer gc --yes`. */
  trigger: "run_end" | "gc";
  actor: string;
  /** `where`: `local`, or the SSH node or Kubernetes pool whose disk held them. */
  deleted: { branchId: string; branchVersion: number; jobId: string; where: string; path: string; bytes: number }[];
  /** Jobs whose weights the policy would delete but could not be reached (node gone or unreachable, volume not mounted), and why. */
  elsewhere: { branchId: string; branchVersion: number; jobId: string; where: string; why: string }[];
}

/**
 * One event per application, so the run's page and report can say which weights retention deleted.
 * The worker's own application (`run_end`) is recorded once however many workers sweep the ended run
 * at the same moment: the run row is locked and a second record is skipped. Returns whether it recorded.
 */
export async function recordRetention(db: Database, record: RetentionRecord): Promise<boolean> {
  const bytes = record.deleted.reduce((sum, d) => sum + d.bytes, 0);
  return db.$transaction(async (tx) => {
    await tx.$queryRaw`SELECT id FROM "Run" WHERE id = ${record.runId} FOR UPDATE`;
    if (record.trigger === "run_end") {
      const done = await tx.event.count({ where: { runId: record.runId, type: "retention_applied", payload: { path: ["trigger"], equals: "run_end" } } });
      if (done > 0) return false;
    }
    await recordEvent(tx, { runId: record.runId, type: "retention_applied", actor: record.actor, payload: { trigger: record.trigger, bytes, deleted: record.deleted, elsewhere: record.elsewhere } });
    return true;
  });
}

/** Every run on this installation, oldest first: what `evotrainer gc` looks at without run ids. */
export async function allRunIds(db: Database): Promise<string[]> {
  return (await db.run.findMany({ select: { id: true }, orderBy: { createdAt: "asc" } })).map((r) => r.id);
}

/** Ended runs the worker has not applied retention to yet. */
export async function runsDueForRetention(db: Database): Promise<string[]> {
  const runs = await db.run.findMany({
    where: { status: { in: [...RETENTION_DUE_RUN_STATUSES] }, events: { none: { type: "retention_applied", payload: { path: ["trigger"], equals: "run_end" } } } },
    select: { id: true },
    orderBy: { finishedAt: "asc" },
  });
  return runs.map((r) => r.id);
}
