"use client";

import { useState } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { RouterOutputs } from "@evotrainer/api";
import { useTRPC } from "~/trpc/react";
import { fmtNumber, fmtReward } from "../format";
import { KeyValues } from "../key-values";
import { LabelChip } from "../labels/label-chip";
import { useReviewKeys } from "../labels/use-review-keys";
import { QueryState } from "../query-state";
import { ScrollBlock } from "../scroll-block";
import { evidenceSummary } from "./evidence-summary";
import { HighlightedText } from "./highlighted-text";
import { TaskHistory } from "./task-history";
import { TokenStrip } from "./token-strip";
import { TrajectoryView } from "./trajectory-view";

function Compare({ rolloutId, runId, branchId }: { rolloutId: string; runId: string; branchId: string }) {
  const trpc = useTRPC();
  const tree = useQuery(trpc.run.tree.queryOptions({ runId }));
  const [other, setOther] = useState("");
  const compare = useQuery(trpc.rollout.compare.queryOptions({ rolloutId, otherBranchId: other }, { enabled: other !== "" }));
  return (
    <div className="compare">
      <label>
        Compare this task with branch{" "}
        <select value={other} onChange={(e) => setOther(e.target.value)} aria-label="Compare with branch">
          <option value="">—</option>
          {tree.data?.branches
            .filter((b) => b.id !== branchId)
            .map((b) => (
              <option key={b.id} value={b.id}>
                v{b.version}
              </option>
            ))}
        </select>
      </label>
      {other && (
        <QueryState isPending={compare.isPending} error={compare.error}>
          {() =>
            compare.data!.rollouts.length === 0 ? (
              <p className="muted">v{compare.data!.version} has no rollout of {compare.data!.taskId}.</p>
            ) : (
              <div data-testid="compare-side">
                {compare.data!.rollouts.map((r) => (
                  <div key={String(r.id)} className="compare-item">
                    <p className="muted">
                      v{compare.data!.version} · step {r.step} · sample {r.sample} · reward {fmtReward(r.reward)} {r.labels.map((l) => l.label).join(", ")}
                    </p>
                    {r.response ? <ScrollBlock name={`Response of v${compare.data!.version}, sample ${r.sample}`}>{r.response}</ScrollBlock> : r.trajectory ? <TrajectoryView trajectory={r.trajectory} /> : <p className="muted">Text not kept.</p>}
                  </div>
                ))}
              </div>
            )
          }
        </QueryState>
      )}
    </div>
  );
}

type RolloutData = RouterOutputs["rollout"]["byId"];

/**
 * The rollout's labels with their quality, and for approvers the review: y / n confirm or reject the
 * selected label (j / k move), with an optional note; a label the detectors missed can be added.
 */
function LabelReviews({ r, canReview }: { r: RolloutData; canReview: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const rolloutId = String(r.id);
  const [selected, setSelected] = useState(0);
  const [note, setNote] = useState("");
  const [missed, setMissed] = useState("");
  const submit = useMutation(
    trpc.labelReview.submit.mutationOptions({
      onSuccess: () => {
        setNote("");
        setMissed("");
        void queryClient.invalidateQueries({ queryKey: trpc.rollout.byId.queryKey({ rolloutId }) });
        void queryClient.invalidateQueries({ queryKey: trpc.rollout.list.queryKey() });
      },
    }),
  );
  const verdictOf = (label: string) => r.reviews.find((v) => v.label === label);
  const review = (label: string, holds: boolean) => submit.mutate({ rolloutId, label, holds, ...(note.trim() ? { note } : {}) });
  const current = r.labels[selected];
  useReviewKeys(canReview && current !== undefined, {
    y: () => current && review(current.label, true),
    n: () => current && review(current.label, false),
    j: () => setSelected((i) => Math.min(i + 1, r.labels.length - 1)),
    k: () => setSelected((i) => Math.max(i - 1, 0)),
  });
  const missedReviews = r.reviews.filter((v) => v.verdict === "missed" || (!v.flagged && v.verdict === "rejected"));
  return (
    <>
      <h4>Labels</h4>
      {r.labels.length === 0 ? (
        <p className="muted">No detector fired on this rollout.</p>
      ) : (
        <ul className="labels" data-testid="rollout-labels">
          {r.labels.map((l, i) => {
            const done = verdictOf(l.label);
            return (
              <li key={String(l.id)} className={canReview && i === selected ? "selected" : undefined} onClick={() => setSelected(i)}>
                <LabelChip quality={l.quality} validity={l.detector.validity} /> {l.detector.key} v{l.detector.version}
                {l.detector.validity ? " (validity)" : ""} <span className="muted evidence-summary">{evidenceSummary(l.evidence)}</span>
                {done && (
                  <span className="pill" data-testid="label-verdict" title={done.note ?? undefined}>
                    {done.verdict} by {done.reviewer}
                  </span>
                )}
                {canReview && (
                  <>
                    <button className="btn small" onClick={() => review(l.label, true)}>
                      Confirm (y)
                    </button>
                    <button className="btn small" onClick={() => review(l.label, false)}>
                      Reject (n)
                    </button>
                  </>
                )}
              </li>
            );
          })}
        </ul>
      )}
      {missedReviews.length > 0 && (
        <p data-testid="missed-labels">
          Reviewed without a flag:{" "}
          {missedReviews.map((v) => (
            <span key={v.label} className="pill">
              {v.label}: {v.verdict === "missed" ? "missed by the detectors" : "does not hold"} ({v.reviewer})
            </span>
          ))}
        </p>
      )}
      {canReview && (
        <div className="review-form">
          <label>
            Note (optional){" "}
            <input value={note} onChange={(e) => setNote(e.target.value)} maxLength={2000} aria-label="Review note" />
          </label>{" "}
          {r.missable.length > 0 && (
            <>
              <select value={missed} onChange={(e) => setMissed(e.target.value)} aria-label="Missed label">
                <option value="">label the detectors missed…</option>
                {r.missable.map((label) => (
                  <option key={label} value={label}>
                    {label}
                  </option>
                ))}
              </select>
              <button className="btn small" disabled={!missed} onClick={() => review(missed, true)}>
                Add missed label
              </button>
            </>
          )}
          {submit.error && <p className="error">{submit.error.message}</p>}
          <p className="muted">Keys: y confirm · n reject · j / k next / previous label.</p>
        </div>
      )}
    </>
  );
}

export function RolloutDetail({ rolloutId, readOnly, onClose }: { rolloutId: string; readOnly: boolean; onClose: () => void }) {
  const trpc = useTRPC();
  const rollout = useQuery(trpc.rollout.byId.queryOptions({ rolloutId }));
  return (
    <aside className="detail" data-testid="rollout-detail">
      <button className="btn ghost close" onClick={onClose} aria-label="Close">
        ×
      </button>
      <QueryState isPending={rollout.isPending} error={rollout.error}>
        {() => {
          const r = rollout.data!;
          const canReview = !readOnly && (r.role === "approver" || r.role === "admin");
          const labels = r.labels.map((l) => ({ label: l.label, evidence: l.evidence }));
          return (
            <>
              <h3>
                Rollout {String(r.id)} · {r.taskId}
              </h3>
              <p className="muted">
                v{r.branch.version} · {r.split} · step {r.step} · group {r.groupId} · sample {r.sample} · {r.responseTokens} tokens · {r.turns} turns · finish {r.finishReason ?? "—"}
                {r.truncated ? " · truncated" : ""}
                {" · "}
                {/* Relative to this branch's rollouts page: the group view sits beside it (shared pages too). */}
                <a href={`groups?r=${r.id}`} data-testid="open-group">
                  GRPO group {r.groupId} side by side →
                </a>
              </p>
              <h4>Reward {fmtReward(r.reward)}</h4>
              <table className="kv">
                <tbody>
                  {Object.entries((r.rewardComponents ?? {}) as Record<string, unknown>).map(([k, v]) => (
                    <tr key={k}>
                      <th>{k}</th>
                      <td>{typeof v === "number" ? fmtNumber(v) : String(v)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
              <LabelReviews r={r} canReview={canReview} />
              <RolloutText r={r} labels={labels} />
              <h4>Tokens</h4>
              <TokenStrip tokens={r.tokens as Parameters<typeof TokenStrip>[0]["tokens"]} imported={r.imported} />
              {!readOnly && (
                <>
                  <h4>Task history: {r.taskId} over this branch&apos;s steps</h4>
                  <TaskHistory runId={r.runId} taskId={r.taskId} branchIds={[r.branchId]} basePath={`/runs/${r.runId}`} />
                </>
              )}
              <Compare rolloutId={rolloutId} runId={r.runId} branchId={r.branchId} />
            </>
          );
        }}
      </QueryState>
    </aside>
  );
}

/** Prompt, response or trajectory, and tests, with the labels' evidence highlighted. */
export function RolloutText({ r, labels }: { r: Pick<RolloutData, "prompt" | "response" | "trajectory" | "testResults">; labels: { label: string; evidence: unknown }[] }) {
  return (
    <>
      <h4>Prompt</h4>
      {r.prompt ? <HighlightedText name="Prompt" text={r.prompt} labels={labels} /> : <p className="muted">Text not kept for this rollout.</p>}
      <h4>{r.trajectory ? "Trajectory" : "Response"}</h4>
      {r.trajectory ? (
        <TrajectoryView trajectory={r.trajectory} labels={labels} />
      ) : r.response ? (
        <HighlightedText name="Response" text={r.response} labels={labels} />
      ) : (
        <p className="muted">Text not kept for this rollout.</p>
      )}
      {r.testResults !== null && (
        <>
          <h4>Tests</h4>
          <KeyValues value={r.testResults} />
        </>
      )}
    </>
  );
}
