"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "~/trpc/react";

/** Ends one training job through its executor (approver or admin); the worker cancels its branch. */
export function CancelJobButton({ jobId, branchId }: { jobId: string; branchId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const cancel = useMutation(trpc.runControl.cancelJob.mutationOptions({ onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.branch.byId.queryKey({ branchId }) }) }));
  if (cancel.isSuccess) return <span className="muted">{cancel.data.changed ? "cancelling…" : cancel.data.message}</span>;
  return (
    <>
      <button className="btn danger small" disabled={cancel.isPending} onClick={() => cancel.mutate({ jobId })}>
        Cancel job
      </button>
      {cancel.error && <span className="error"> {cancel.error.message}</span>}
    </>
  );
}
