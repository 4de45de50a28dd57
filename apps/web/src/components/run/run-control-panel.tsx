"use client";

import { useState } from "react";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "~/trpc/react";
import { useHydrated } from "~/lib/use-hydrated";

const LIVE = ["pending", "running", "paused", "finishing"];

/**
 * Pause, resume, stop and budget extension for approvers and admins. Each answer says what happened,
 * including "already …" for a repeat; the run header refreshes from the server.
 */
export function RunControlPanel({ runId, status, budgetSeconds }: { runId: string; status: string; budgetSeconds: number | null }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [note, setNote] = useState<string | null>(null);
  const [confirmStop, setConfirmStop] = useState(false);
  const [skipSealed, setSkipSealed] = useState(false);
  const hydrated = useHydrated();
  const done = (answer: { status: string; changed: boolean; message: string | null }) => {
    setNote(answer.changed ? `Run is now ${answer.status}.` : (answer.message ?? "Nothing changed."));
    setConfirmStop(false);
    void queryClient.invalidateQueries({ queryKey: trpc.run.byId.queryKey({ runId }) });
  };
  const options = { onSuccess: done, onError: (error: { message: string }) => setNote(error.message) };
  const pause = useMutation(trpc.runControl.pause.mutationOptions(options));
  const resume = useMutation(trpc.runControl.resume.mutationOptions(options));
  const stop = useMutation(trpc.runControl.stop.mutationOptions(options));
  const extend = useMutation(trpc.runControl.extendBudget.mutationOptions(options));
  const busy = !hydrated || pause.isPending || resume.isPending || stop.isPending || extend.isPending;
  if (!LIVE.includes(status) && status !== "stopping") return null;
  return (
    <section className="panel" data-testid="run-control">
      <h3>Run control</h3>
      <div className="row">
        {status === "paused" ? (
          <button className="btn" disabled={busy} onClick={() => resume.mutate({ runId })}>
            Resume
          </button>
        ) : (
          <button className="btn" disabled={busy || !["pending", "running"].includes(status)} onClick={() => pause.mutate({ runId })} title="No new job starts; running jobs finish">
            Pause
          </button>
        )}
        {!confirmStop ? (
          <button className="btn danger" disabled={busy || status === "stopping"} onClick={() => setConfirmStop(true)}>
            Stop…
          </button>
        ) : (
          <span className="confirm">
            <label>
              <input type="checkbox" checked={skipSealed} onChange={(e) => setSkipSealed(e.target.checked)} /> skip the sealed evaluation
            </label>
            <button className="btn danger" disabled={busy} onClick={() => stop.mutate({ runId, sealed: !skipSealed })}>
              Confirm stop
            </button>
            <button className="btn ghost" onClick={() => setConfirmStop(false)}>
              Cancel
            </button>
          </span>
        )}
        <form
          className="row"
          onSubmit={(e) => {
            e.preventDefault();
            extend.mutate({ runId, gpuSeconds: Number(new FormData(e.currentTarget).get("gpuSeconds")) });
          }}
        >
          <input name="gpuSeconds" type="number" min={1} required placeholder={budgetSeconds ? `budget ${budgetSeconds} s` : "GPU-seconds"} aria-label="New GPU budget (seconds)" />
          <button className="btn" type="submit" disabled={busy}>
            Extend budget
          </button>
        </form>
      </div>
      {note && (
        <p className="muted" role="status" data-testid="run-control-note">
          {note}
        </p>
      )}
    </section>
  );
}
