"use client";

import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "~/trpc/react";
import { fmtNumber, fmtReward } from "../format";
import { QueryState } from "../query-state";

/** One GRPO group side by side: each sample's reward, advantage, labels and length, and whether the group is dead. */
export function GroupView({ rolloutId, rolloutsPath }: { rolloutId: string; rolloutsPath: string }) {
  const trpc = useTRPC();
  const group = useQuery(trpc.rolloutViews.group.queryOptions({ rolloutId }));
  return (
    <QueryState isPending={group.isPending} error={group.error}>
      {() => {
        const g = group.data!;
        return (
          <section className="panel" data-testid="group-view">
            <h2>
              Group {g.groupId} · task {g.taskId} · step {g.step} ({g.split})
            </h2>
            <p>
              {g.members.length === 1 ? (
                <span className="pill" data-testid="group-single">
                  one sample
                </span>
              ) : g.dead ? (
                <span className="pill bad" data-testid="group-dead">
                  dead
                </span>
              ) : (
                <span className="pill ok" data-testid="group-alive">
                  carries signal
                </span>
              )}{" "}
              {g.members.length === 1
                ? "A group of one sample: GRPO has no other sample of this prompt to compare it with, so its advantage is zero."
                : g.dead
                  ? `Every one of its ${g.members.length} samples got the same reward, so every advantage is zero and the group teaches the policy nothing.`
                  : `Its ${g.members.length} samples got different rewards: the advantages push the policy towards the better ones.`}{" "}
              <span className="muted">Advantages {g.advantageSource}.</span>
            </p>
            <table className="runs compact" data-testid="group-members">
              <thead>
                <tr>
                  <th>sample</th>
                  <th>reward</th>
                  <th>advantage</th>
                  <th>response tokens</th>
                  <th>finish</th>
                  <th>labels</th>
                </tr>
              </thead>
              <tbody>
                {g.members.map((m) => (
                  <tr key={String(m.id)} className={String(m.id) === rolloutId ? "selected" : undefined}>
                    <td>
                      <a href={`${rolloutsPath}?r=${m.id}`}>sample {m.sample}</a>
                    </td>
                    <td>{fmtReward(m.reward)}</td>
                    <td>{fmtNumber(m.advantage)}</td>
                    <td>{m.responseTokens}</td>
                    <td>{m.truncated ? "truncated" : (m.finishReason ?? "—")}</td>
                    <td>{m.labels.length ? m.labels.join(", ") : <span className="muted">none</span>}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </section>
        );
      }}
    </QueryState>
  );
}
