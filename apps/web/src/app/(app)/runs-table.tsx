"use client";

import { useSuspenseQuery } from "@tanstack/react-query";
import type { RunListInput } from "@evotrainer/api";
import { budgetSeconds, fmtDelta, fmtScore } from "~/components/format";
import { StatusBadge } from "~/components/status-badge";
import { useTRPC } from "~/trpc/react";

export function RunsTable({ input }: { input: RunListInput }) {
  const trpc = useTRPC();
  const { data: runs } = useSuspenseQuery(trpc.run.list.queryOptions(input, { refetchInterval: 10_000 }));

  if (runs.length === 0) {
    return (
      <div className="empty" data-testid="runs-empty">
        <p>No runs yet.</p>
        <p className="muted">
          Start one with <code>npm run quickstart</code>: it runs the loop on the built-in gym.
        </p>
      </div>
    );
  }
  return (
    <table className="runs" data-testid="runs-table">
      <thead>
        <tr>
          <th>Run</th>
          <th>Status</th>
          <th>Domain</th>
          <th>Round</th>
          <th>Branches</th>
          <th>Best score</th>
          <th>Δ over base</th>
          <th>Budget used</th>
          <th>Waiting</th>
        </tr>
      </thead>
      <tbody>
        {runs.map((run) => {
          const total = budgetSeconds(run.budget);
          return (
            <tr key={run.id}>
              <td>
                <a href={`/runs/${run.id}`}>{run.name}</a>
              </td>
              <td>
                <StatusBadge status={run.status} />
              </td>
              <td>{run.domain}</td>
              <td>{run.round}</td>
              <td>{run.branches}</td>
              <td>{fmtScore(run.bestScore)}</td>
              <td>{fmtDelta(run.deltaOverBase)}</td>
              <td>
                {Math.round(run.gpuSecondsUsed)} s{total === null ? "" : ` / ${Math.round(total)} s`}
              </td>
              <td>{run.waitingDecisions > 0 ? <span className="pill warn">{run.waitingDecisions} waiting</span> : "—"}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
