"use client";

import { useState } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "~/trpc/react";
import { fmtReward } from "../format";
import { QueryState } from "../query-state";
import { evidenceSummary } from "../rollouts/evidence-summary";
import { RolloutText } from "../rollouts/rollout-detail";
import { LabelChip } from "./label-chip";
import { useReviewKeys } from "./use-review-keys";

/** One question of the queue, with the rollout it asks about. */
function Question({ item, canReview, onAnswered, onSkip }: { item: { rolloutId: string; label: string; stratum: "flagged" | "unflagged" }; canReview: boolean; onAnswered: () => void; onSkip: () => void }) {
  const trpc = useTRPC();
  const [note, setNote] = useState("");
  const rollout = useQuery(trpc.rollout.byId.queryOptions({ rolloutId: item.rolloutId }));
  const submit = useMutation(
    trpc.labelReview.submit.mutationOptions({
      onSuccess: () => {
        setNote("");
        onAnswered();
      },
    }),
  );
  const answer = (holds: boolean) => {
    if (!submit.isPending) submit.mutate({ rolloutId: item.rolloutId, label: item.label, holds, fromQueue: true, ...(note.trim() ? { note } : {}) });
  };
  useReviewKeys(canReview && rollout.isSuccess, { y: () => answer(true), n: () => answer(false), s: onSkip });
  return (
    <section className="panel" data-testid="review-question">
      <h3>
        Does <span data-testid="question-label">{item.label}</span> hold on rollout {item.rolloutId}?
      </h3>
      <p className="muted">
        {item.stratum === "flagged"
          ? "The detector flagged this rollout: y confirms the label, n rejects it (precision)."
          : "The detector did not flag this rollout, drawn at random among those it did not flag: y says it missed the label, n that the label does not hold (recall)."}
      </p>
      <QueryState isPending={rollout.isPending} error={rollout.error}>
        {() => {
          const r = rollout.data!;
          const flag = r.labels.find((l) => l.label === item.label);
          return (
            <>
              <p>
                v{r.branch.version} · {r.split} · step {r.step} · task {r.taskId} · reward {fmtReward(r.reward)} · finish {r.finishReason ?? "—"}
              </p>
              <p>
                {r.labels.length === 0 ? <span className="muted">No labels.</span> : r.labels.map((l) => <LabelChip key={String(l.id)} quality={l.quality} validity={l.detector.validity} />)}
              </p>
              {flag && <p className="muted evidence-summary">Evidence: {evidenceSummary(flag.evidence)}</p>}
              {canReview ? (
                <div className="review-form">
                  <button className="btn primary" onClick={() => answer(true)} disabled={submit.isPending}>
                    {item.stratum === "flagged" ? "Confirm" : "Missed"} (y)
                  </button>{" "}
                  <button className="btn" onClick={() => answer(false)} disabled={submit.isPending}>
                    {item.stratum === "flagged" ? "Reject" : "Does not hold"} (n)
                  </button>{" "}
                  <button className="btn ghost" onClick={onSkip}>
                    Skip (s)
                  </button>{" "}
                  <label>
                    Note (optional) <input value={note} onChange={(e) => setNote(e.target.value)} maxLength={2000} aria-label="Review note" />
                  </label>
                  {submit.error && <p className="error">{submit.error.message}</p>}
                </div>
              ) : (
                <p className="muted">Viewers and share links see the queue; approvers and admins review.</p>
              )}
              <RolloutText r={r} labels={r.labels.map((l) => ({ label: l.label, evidence: l.evidence }))} />
            </>
          );
        }}
      </QueryState>
    </section>
  );
}

/**
 * The run's review queue: per detector, a random sample of the rollouts it flagged (precision) and of
 * those it did not (recall), interleaved, answered with y / n (s skips for this visit).
 */
export function ReviewQueue({ runId }: { runId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const queue = useQuery(trpc.labelReview.queue.queryOptions({ runId }));
  const [skipped, setSkipped] = useState<string[]>([]);
  return (
    <main className="page">
      <h1>Review queue</h1>
      <QueryState isPending={queue.isPending} error={queue.error}>
        {() => {
          const q = queue.data!;
          const canReview = q.role === "approver" || q.role === "admin";
          const key = (i: { rolloutId: string; label: string }) => `${i.rolloutId}/${i.label}`;
          const next = q.items.find((i) => !i.reviewed && !skipped.includes(key(i)));
          return (
            <>
              <p className="muted">
                Harness v{q.harness.version}. Answering in this order keeps the estimates unbiased: each answer carries its rollout&apos;s sampling weight.
              </p>
              <ul className="queue-progress" data-testid="queue-progress">
                {q.progress
                  .filter((p) => p.planned > 0)
                  .map((p) => (
                    <li key={`${p.detectorId}/${p.stratum}`}>
                      {p.label}
                      {p.stratum === "unflagged" ? " (unflagged, for recall)" : ""}: {p.reviewed} of {p.planned} reviewed
                    </li>
                  ))}
              </ul>
              {next ? (
                <Question
                  key={key(next)}
                  item={next}
                  canReview={canReview}
                  onAnswered={() => void queryClient.invalidateQueries({ queryKey: trpc.labelReview.queue.queryKey({ runId }) })}
                  onSkip={() => setSkipped((s) => [...s, key(next)])}
                />
              ) : (
                <div className="empty" data-testid="queue-done">
                  {q.items.length === 0 ? "Nothing to review: no detector of this harness version has run on the run's rollouts." : "Every question of the queue is answered (or skipped on this visit)."}
                </div>
              )}
            </>
          );
        }}
      </QueryState>
    </main>
  );
}
