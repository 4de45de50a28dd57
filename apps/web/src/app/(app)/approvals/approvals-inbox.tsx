"use client";

import { useQuery } from "@tanstack/react-query";
import { DecisionPanel } from "~/components/branch/decision-panel";
import { fmtDelta, fmtScore } from "~/components/format";
import { QueryState } from "~/components/query-state";
import { useTRPC } from "~/trpc/react";

type Check = { name: string; passed: boolean; detail: string; blocking?: boolean };

/** Everything waiting for a person, with the evidence to decide without leaving the page. */
export function ApprovalsInbox() {
  const trpc = useTRPC();
  const inbox = useQuery(trpc.decision.inbox.queryOptions(undefined, { refetchInterval: 5_000 }));
  return (
    <QueryState isPending={inbox.isPending} error={inbox.error}>
      {() =>
        inbox.data!.length === 0 ? (
          <div className="empty" data-testid="inbox-empty">
            Nothing is waiting for a decision.
          </div>
        ) : (
          <div className="inbox">
            {inbox.data!.map((b) => (
              <article key={b.id} className="panel" data-testid="inbox-item">
                <h3>
                  <a href={`/runs/${b.run.id}`}>{b.run.name}</a> · <a href={`/runs/${b.run.id}/branches/${b.id}`}>v{b.version}</a>
                </h3>
                {b.intervention && (
                  <p>
                    <strong>{b.intervention.factor}</strong> → {b.intervention.targetMetric}: {b.intervention.hypothesis}
                  </p>
                )}
                <p className="muted">
                  backtest predicted {fmtDelta(b.intervention?.backtest?.predictedEffect)} · realised {fmtDelta(b.intervention?.backtest?.realisedEffect)}
                </p>
                {b.verdict ? (
                  <p>
                    <span className={`pill ${b.verdict.passed ? "ok" : "bad"}`}>verdict {b.verdict.passed ? "passed" : "failed"}</span> score {fmtScore(b.verdict.promotionScore)} · Δ vs
                    parent {fmtDelta(b.verdict.deltaVsParent)} [{fmtDelta(b.verdict.ciLow)}, {fmtDelta(b.verdict.ciHigh)}] ·{" "}
                    {((b.verdict.checks ?? []) as Check[]).map((c) => (
                      <span key={c.name} className={`pill ${c.blocking === false ? "" : c.passed ? "ok" : "bad"}`} title={c.detail}>
                        {c.name}
                      </span>
                    ))}
                  </p>
                ) : (
                  <p className="muted">No verdict.</p>
                )}
                {b.canDecide ? (
                  <DecisionPanel
                    branchId={b.id}
                    failedChecks={((b.verdict?.checks ?? []) as Check[]).filter((c) => !c.passed && c.blocking !== false).map((c) => ({ name: c.name, detail: c.detail }))}
                  />
                ) : <p className="muted">Viewers read; approvers and admins decide.</p>}
              </article>
            ))}
          </div>
        )
      }
    </QueryState>
  );
}
