"use client";

import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "~/trpc/react";
import { fmtScore } from "../format";
import { QueryState } from "../query-state";

/** The branch's dead groups, newest steps first, each opening its group view. */
export function DeadGroups({ branchId, groupsPath }: { branchId: string; groupsPath: string }) {
  const trpc = useTRPC();
  const dead = useQuery(trpc.rolloutViews.deadGroups.queryOptions({ branchId }));
  return (
    <section className="panel">
      <h2>Dead groups</h2>
      <QueryState isPending={dead.isPending} error={dead.error}>
        {() =>
          dead.data!.length === 0 ? (
            <p className="muted">No dead group: every group of this branch got at least two different rewards.</p>
          ) : (
            <table className="runs compact" data-testid="dead-groups">
              <thead>
                <tr>
                  <th>step</th>
                  <th>group</th>
                  <th>task</th>
                  <th>samples</th>
                  <th>every reward</th>
                </tr>
              </thead>
              <tbody>
                {dead.data!.map((g) => (
                  <tr key={`${g.step}-${g.groupId}`}>
                    <td>{g.step}</td>
                    <td>
                      <a href={`${groupsPath}?r=${g.firstId}`}>{g.groupId}</a>
                    </td>
                    <td>{g.taskId}</td>
                    <td>{g.size}</td>
                    <td>{fmtScore(g.reward)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </QueryState>
    </section>
  );
}
