"use client";

import { useState } from "react";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "~/trpc/react";

/** Approve, revise (instructions) or veto (reason required). Rendered only for approvers and admins. */
export function DecisionPanel({ branchId, onDecided }: { branchId: string; onDecided?: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [mode, setMode] = useState<"revise" | "veto" | null>(null);
  const [text, setText] = useState("");
  const options = {
    onSuccess: () => {
      setMode(null);
      setText("");
      void queryClient.invalidateQueries();
      onDecided?.();
    },
  };
  const approve = useMutation(trpc.decision.approve.mutationOptions(options));
  const revise = useMutation(trpc.decision.revise.mutationOptions(options));
  const veto = useMutation(trpc.decision.veto.mutationOptions(options));
  const error = approve.error ?? revise.error ?? veto.error;
  const pending = approve.isPending || revise.isPending || veto.isPending;

  return (
    <div className="decision-panel" data-testid="decision-panel">
      <div className="row">
        <button className="btn primary" disabled={pending} onClick={() => approve.mutate({ branchId })}>
          Approve
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
            if (mode === "veto") veto.mutate({ branchId, reason: text });
            else revise.mutate({ branchId, instructions: text });
          }}
        >
          <label>
            {mode === "veto" ? "Reason for the veto (kept as negative evidence)" : "Instructions for the proposer"}
            <textarea value={text} onChange={(e) => setText(e.target.value)} required rows={3} />
          </label>
          <button className="btn danger" type="submit" disabled={pending || text.trim() === ""}>
            {mode === "veto" ? "Confirm veto" : "Send back with instructions"}
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
