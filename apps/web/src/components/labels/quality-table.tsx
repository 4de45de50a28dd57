"use client";

import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "~/trpc/react";
import { QueryState } from "../query-state";

const two = (x: number) => x.toFixed(2);
const pct = (x: number) => `${(x * 100).toFixed(0)}%`;
const interval = ([lo, hi]: [number, number]) => `[${two(lo)}, ${two(hi)}]`;
const separatesText = (separates: "none" | "failures" | "successes") =>
  separates === "none" ? "does not separate failure from success" : separates === "failures" ? "marks failures" : "marks successes";

/** Per detector of a run's harness version: reviewed precision, estimated recall and informativeness. */
export function QualityTable({ runId, harnessVersionId }: { runId: string; harnessVersionId: string }) {
  const trpc = useTRPC();
  const quality = useQuery(trpc.labelReview.quality.queryOptions({ runId, harnessVersionId }));
  return (
    <QueryState isPending={quality.isPending} error={quality.error}>
      {() => (
        <table className="runs compact" data-testid="quality-table">
          <thead>
            <tr>
              <th>Label</th>
              <th>Reviewed</th>
              <th>Precision (Wilson 95%)</th>
              <th>Recall, estimated (95%)</th>
              <th>Flag rate: failed / successful</th>
              <th>Difference (95%)</th>
              <th>Informativeness</th>
              <th>On each branch it labelled: flag rate, separates</th>
            </tr>
          </thead>
          <tbody>
            {quality.data!.detectors.map((q) => (
              <tr key={q.detectorId} data-testid="quality-row">
                <td>
                  {q.label}
                  {q.detector.validity ? " (validity)" : ""}
                </td>
                <td>{q.reviewed}</td>
                <td>{q.precision === null ? "not reviewed" : `${two(q.precision)} ${interval(q.precisionInterval!)}`}</td>
                <td>
                  {q.recall === null ? `unknown (${q.recallReviewed} unflagged reviewed)` : `${two(q.recall.recall)} ${interval(q.recall.interval)} from ${q.recallReviewed} unflagged`}
                  {q.missedOutsideSample > 0 && (
                    <div className="muted" data-testid="missed-outside-sample">
                      {q.missedOutsideSample} missed outside the queue&apos;s sample (imported or added by hand; no sampling weight, so not in recall)
                    </div>
                  )}
                </td>
                <td>
                  {pct(q.informativeness.failedRate)} / {pct(q.informativeness.succeededRate)}
                </td>
                <td>
                  {two(q.informativeness.difference)} {interval(q.informativeness.interval)}
                </td>
                <td className={q.informativeness.separates === "none" ? "bad" : undefined}>
                  {separatesText(q.informativeness.separates)}
                </td>
                <td data-testid="quality-branches">
                  {q.branches.length === 0
                    ? "not run yet"
                    : q.branches.map((b) => (
                        <div key={b.branchId}>
                          v{b.version}: {pct(b.flagged / b.rollouts)} of {b.rollouts}, {separatesText(b.informativeness.separates)}
                        </div>
                      ))}
                </td>
              </tr>
            ))}
            {quality.data!.unmeasured.map((u) => (
              <tr key={u.label} data-testid="unmeasured-row">
                <td>{u.label}</td>
                <td colSpan={7} className="muted">
                  {u.reviews} reviews kept ({u.missed} missed), not measured: no detector of this harness version has this label
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </QueryState>
  );
}
