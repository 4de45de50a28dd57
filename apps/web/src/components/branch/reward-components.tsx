"use client";

import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "~/trpc/react";
import { fmtNumber } from "../format";
import { QueryState } from "../query-state";

const pct = (x: number) => `${Math.round(100 * x)}%`;

/** Each reward component's mean per training step, and its share of the reward: which part of the reward is doing the teaching. */
export function RewardComponents({ branchId }: { branchId: string }) {
  const trpc = useTRPC();
  const shares = useQuery(trpc.rolloutViews.rewardComponents.queryOptions({ branchId }));
  return (
    <QueryState isPending={shares.isPending} error={shares.error}>
      {() => {
        const s = shares.data!;
        if (s.steps.length === 0) return <p className="muted">No training rollout with reward components yet.</p>;
        return (
          <table className="runs compact" data-testid="reward-components">
            <thead>
              <tr>
                <th>step</th>
                {s.components.map((c) => (
                  <th key={c}>{c}</th>
                ))}
              </tr>
            </thead>
            <tbody>
              {s.steps.map((step) => (
                <tr key={step.step}>
                  <td>{step.step}</td>
                  {s.components.map((c) => {
                    const v = step.byComponent[c];
                    return (
                      <td key={c}>
                        {v ? (
                          <>
                            <span className="share-bar" style={{ width: `${Math.round(60 * v.share)}px` }} /> {pct(v.share)} <span className="muted">(mean {fmtNumber(v.mean)})</span>
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
        );
      }}
    </QueryState>
  );
}
