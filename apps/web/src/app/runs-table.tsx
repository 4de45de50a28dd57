"use client";

import { useSuspenseQuery } from "@tanstack/react-query";
import { useTRPC } from "~/trpc/react";

function budgetSeconds(budget: unknown): number | null {
  const value = (budget as { gpuSeconds?: unknown } | null)?.gpuSeconds;
  return typeof value === "number" ? value : null;
}

export function RunsTable() {
  const trpc = useTRPC();
  const { data: runs } = useSuspenseQuery(trpc.run.list.queryOptions({}));

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
          <th>Budget used</th>
          <th>Created</th>
        </tr>
      </thead>
      <tbody>
        {runs.map((run) => {
          const total = budgetSeconds(run.budget);
          return (
            <tr key={run.id}>
              <td>{run.name}</td>
              <td>
                <span className={`status status-${run.status}`}>{run.status}</span>
              </td>
              <td>{run.domain}</td>
              <td>{run.round}</td>
              <td>{run._count.branches}</td>
              <td>
                {Math.round(run.gpuSecondsUsed)} s{total === null ? "" : ` / ${Math.round(total)} s`}
              </td>
              <td>{run.createdAt.toISOString().slice(0, 16).replace("T", " ")}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
