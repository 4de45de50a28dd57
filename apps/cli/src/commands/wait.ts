import { isSettledRun } from "@evotrainer/core";
import type { RunReport } from "@evotrainer/db";

/** Polls the run's report (from the database, or a server) until it ends, reporting progress whenever it changes. */
export async function waitForRun(
  load: () => Promise<RunReport>,
  onProgress: (report: RunReport) => void,
  options: { everyMs?: number; signal?: AbortSignal } = {},
): Promise<RunReport> {
  let last = "";
  for (;;) {
    options.signal?.throwIfAborted();
    const report = await load();
    const fingerprint = JSON.stringify([report.status, report.round, report.branches.map((b) => b.status), Math.floor(report.budget.gpuSeconds.used / 10)]);
    if (fingerprint !== last) {
      onProgress(report);
      last = fingerprint;
    }
    if (isSettledRun(report.status)) return report;
    await new Promise((resolve) => setTimeout(resolve, options.everyMs ?? 1_000));
  }
}
