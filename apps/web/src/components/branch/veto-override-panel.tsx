"use client";

import { useState } from "react";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "~/trpc/react";
import { FailedChecksWarning, type FailedCheck } from "./failed-checks-warning";

/**
 * The autonomy policy vetoed this branch on its gate; a person may promote it anyway, after reading
 * which checks failed and saying why. The audit keeps the reason and marks the decision as an override.
 */
export function VetoOverridePanel({ branchId, policyReason, failedChecks }: { branchId: string; policyReason: string; failedChecks: FailedCheck[] }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const [reason, setReason] = useState("");
  const override = useMutation(trpc.decision.overrideVeto.mutationOptions({ onSettled: () => void queryClient.invalidateQueries() }));
  if (override.data) {
    return (
      <p className="muted" data-testid="decision-recorded">
        {override.data.alreadyDecided ? "The veto was already overridden." : `Override recorded: the branch is promoted${override.data.bestSoFar ? " and is now the best so far" : ""}.`}
      </p>
    );
  }
  return (
    <div className="decision-panel" data-testid="veto-override">
      <p>
        The autonomy policy vetoed this branch: <em>{policyReason}</em>
      </p>
      {!open ? (
        <button className="btn" onClick={() => setOpen(true)}>
          Override the veto…
        </button>
      ) : (
        <form
          className="form"
          onSubmit={(e) => {
            e.preventDefault();
            override.mutate({ branchId, reason });
          }}
        >
          <FailedChecksWarning
            heading={`Overriding promotes the branch although ${failedChecks.length === 1 ? "this check" : `these ${failedChecks.length} checks`} failed:`}
            checks={failedChecks}
          />
          <label>
            Why override the policy? (kept in the audit, marked as an override)
            <textarea value={reason} onChange={(e) => setReason(e.target.value)} required rows={3} />
          </label>
          <button className="btn primary" type="submit" disabled={override.isPending || reason.trim() === ""}>
            Override and promote
          </button>
        </form>
      )}
      {override.error && (
        <p className="error" role="alert">
          {override.error.message}
        </p>
      )}
    </div>
  );
}
