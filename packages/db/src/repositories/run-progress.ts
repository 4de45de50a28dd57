import type { Database } from "../client.ts";

/** Where a run stands: what `evotrainer status` prints in one line, and the head of every RunReport. */
export interface RunProgress {
  runId: string;
  name: string;
  status: string;
  round: number;
  budget: {
    /** used includes the controls' GPU time, which `controls` shows apart. */
    gpuSeconds: { used: number; total: number | null; controls: number };
    branches: { used: number; total: number | null };
    rounds: { used: number; total: number | null };
  };
  /** In version order. */
  branches: { status: string }[];
}

/** The columns a run's progress is derived from. */
interface ProgressRow {
  round: number;
  budget: unknown;
  gpuSecondsUsed: number;
  branches: { parentId: string | null; kind: string; gpuSecondsUsed: number }[];
}

/** A run's budget as spent so far; the controls' GPU time counts, and is also shown apart. */
export function budgetProgress(run: ProgressRow): RunProgress["budget"] {
  const budget = run.budget as { gpuSeconds?: number; branches?: number; rounds?: number };
  return {
    gpuSeconds: {
      used: run.gpuSecondsUsed,
      total: budget.gpuSeconds ?? null,
      controls: run.branches.filter((b) => b.kind === "control").reduce((s, b) => s + b.gpuSecondsUsed, 0),
    },
    branches: { used: run.branches.filter((b) => b.parentId !== null && b.kind === "candidate").length, total: budget.branches ?? null },
    rounds: { used: run.round, total: budget.rounds ?? null },
  };
}

/**
 * The progress of `runId`, or of the latest run without one; null when there is no such run. One
 * query over the run and its branches' states: `evotrainer status` waits for nothing else.
 */
export async function loadRunProgress(db: Database, runId?: string): Promise<RunProgress | null> {
  const run = await db.run.findFirst({
    where: runId === undefined ? {} : { id: runId },
    orderBy: { createdAt: "desc" },
    select: {
      id: true,
      name: true,
      status: true,
      round: true,
      budget: true,
      gpuSecondsUsed: true,
      branches: { orderBy: { version: "asc" }, select: { parentId: true, kind: true, status: true, gpuSecondsUsed: true } },
    },
  });
  if (!run) return null;
  return { runId: run.id, name: run.name, status: run.status, round: run.round, budget: budgetProgress(run), branches: run.branches.map((b) => ({ status: b.status })) };
}
