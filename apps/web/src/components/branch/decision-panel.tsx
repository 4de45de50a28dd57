"use client";

import { useState } from "react";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "~/trpc/react";
import { FailedChecksWarning, type FailedCheck } from "./failed-checks-warning";

/**
 * Approve, revise (instructions) or veto (reason required). Rendered only for approvers and admins.
 * Approving asks for a confirmation first: a promotion is not taken back, it is only outgrown by a
 * later branch. Against a failed verdict, approving is an override: the panel lists the failed checks
 * and asks for the reason, which the audit keeps. The inbox drops the branch at once; a second click on a decided
 * branch is answered "already decided" by the API, never an error.
 */
export function DecisionPanel({ branchId, failedChecks = [] }: { branchId: string; failedChecks?: FailedCheck[] }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [mode, setMode] = useState<"approve" | "revise" | "veto" | null>(null);
  const [text, setText] = useState("");
  const [decided, setDecided] = useState<string | null>(null);
  const inboxKey = trpc.decision.inbox.queryKey();
  const options = {
    onMutate: async () => {
      await queryClient.cancelQueries({ queryKey: inboxKey });
      queryClient.setQueryData(inboxKey, (items) => items?.filter((b) => b.id !== branchId));
    },
    onSuccess: (result: { alreadyDecided: boolean }, _input: unknown) => {
      setMode(null);
      setText("");
      setDecided(result.alreadyDecided ? "This branch was already decided." : "Decision recorded; the worker applies it.");
    },
    onSettled: () => void queryClient.invalidateQueries(),
  };
  const approve = useMutation(trpc.decision.approve.mutationOptions(options));
  const revise = useMutation(trpc.decision.revise.mutationOptions(options));
  const veto = useMutation(trpc.decision.veto.mutationOptions(options));
  const error = approve.error ?? revise.error ?? veto.error;
  const pending = approve.isPending || revise.isPending || veto.isPending;
  const override = failedChecks.length > 0;
  // Only a plain approval may go without a note.
  const needsText = mode !== "approve" || override;

  if (decided) {
    return (
      <p className="muted" data-testid="decision-recorded">
        {decided}
      </p>
    );
  }
  return (
    <div className="decision-panel" data-testid="decision-panel">
      <div className="row">
        <button className="btn primary" disabled={pending} onClick={() => setMode(mode === "approve" ? null : "approve")}>
          {override ? "Approve anyway…" : "Approve…"}
        </button>
        <button className="btn" disabled={pending} onClick={() => setMode(mode === "revise" ? null : "revise")}>
          Revise…
        </button>
        <button className="btn danger" disabled={pending} onClick={() => setMode(mode === "veto" ? null : "veto")}>
          Veto…
        </button>
      </div>
      {mode && (
        <form
          className="form"
          onSubmit={(e) => {
            e.preventDefault();
            if (mode === "approve") approve.mutate(override ? { branchId, reason: text, approveAnyway: true } : { branchId, reason: text });
            else if (mode === "veto") veto.mutate({ branchId, reason: text });
            else revise.mutate({ branchId, instructions: text });
          }}
        >
          {mode === "approve" &&
            (override ? (
              <FailedChecksWarning
                heading={`The verdict failed ${failedChecks.length} check${failedChecks.length === 1 ? "" : "s"}. Approving promotes the branch anyway:`}
                checks={failedChecks}
              />
            ) : (
              <p data-testid="approve-confirmation">
                Approving promotes this branch: it becomes the run&apos;s best so far and the parent of the next round. A promotion is not undone; a later branch replaces it only by beating it.
              </p>
            ))}
          <label>
            {mode === "approve"
              ? override
                ? "Why approve against the verdict? (kept in the audit with the checks overridden)"
                : "Note (optional, kept in the audit)"
              : mode === "veto"
                ? "Reason for the veto (kept as negative evidence)"
                : "Instructions for the proposer"}
            <textarea value={text} onChange={(e) => setText(e.target.value)} required={needsText} rows={3} />
          </label>
          <button className={`btn ${mode === "approve" ? "primary" : "danger"}`} type="submit" disabled={pending || (needsText && text.trim() === "")}>
            {mode === "approve" ? (override ? "Approve anyway" : "Confirm approve") : mode === "veto" ? "Confirm veto" : "Send back with instructions"}
          </button>{" "}
          <button className="btn ghost" type="button" onClick={() => setMode(null)}>
            Cancel
          </button>
        </form>
      )}
      {error && (
        <p className="error" role="alert">
          {error.message}
        </p>
      )}
    </div>
  );
}
