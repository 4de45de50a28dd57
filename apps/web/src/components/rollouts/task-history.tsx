"use client";

import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "~/trpc/react";
import { fmtScore } from "../format";
import { QueryState } from "../query-state";

/**
 * One task across every step of each branch: its mean reward over the samples, and the labels they
 * got. Read along a row to see whether the policy learned it, forgot it, or started hacking it.
 */
export function TaskHistory({ runId, taskId, branchIds, basePath }: { runId: string; taskId: string; branchIds: string[]; basePath: string }) {
  const trpc = useTRPC();
  const history = useQuery(trpc.rolloutViews.taskHistory.queryOptions({ runId, taskId, branchIds }));
  return (
    <QueryState isPending={history.isPending} error={history.error}>
      {() => {
        const h = history.data!;
        const steps = [...new Set(h.points.map((p) => `${p.split} ${p.step}`))];
        if (steps.length === 0) return <p className="muted">No rollout of {taskId} in these branches.</p>;
        return (
          <div className="table-scroll" tabIndex={0} role="region" aria-label={`History of task ${taskId}`}>
            <table className="runs compact" data-testid="task-history">
              <thead>
                <tr>
                  <th>branch</th>
                  {steps.map((s) => (
                    <th key={s}>{s.startsWith("train ") ? `step ${s.slice(6)}` : s}</th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {h.branches.map((b) => (
                  <tr key={b.id} data-testid="task-history-row">
                    <th scope="row">v{b.version}</th>
                    {steps.map((s) => {
                      const p = h.points.find((x) => x.branchId === b.id && `${x.split} ${x.step}` === s);
                      return (
                        <td key={s}>
                          {p ? (
                            <>
                              <a href={`${basePath}/branches/${b.id}/rollouts?r=${p.firstId}`}>{fmtScore(p.meanReward)}</a>
                              <span className="muted"> ×{p.samples}</span>
                              {p.labels.length > 0 && <div className="muted">{p.labels.join(", ")}</div>}
                            </>
                          ) : (
                            <span className="muted">—</span>
                          )}
                        </td>
                      );
                    })}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        );
      }}
    </QueryState>
  );
}
