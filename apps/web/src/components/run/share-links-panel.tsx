"use client";

import { useState } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "~/trpc/react";
import { fmtTime } from "../format";

/** Create, list and revoke read-only links to a run. A new link's URL is shown once. */
export function ShareLinksPanel({ runId }: { runId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const links = useQuery(trpc.shareLink.list.queryOptions({ runId }));
  const [expiry, setExpiry] = useState("");
  const [created, setCreated] = useState<string | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.shareLink.list.queryKey({ runId }) });
  const create = useMutation(
    trpc.shareLink.create.mutationOptions({
      onSuccess: (link) => {
        setCreated(`${window.location.origin}${link.path}`);
        void refresh();
      },
    }),
  );
  const revoke = useMutation(trpc.shareLink.revoke.mutationOptions({ onSuccess: () => void refresh() }));

  return (
    <section className="panel" data-testid="share-links">
      <h3>Share links</h3>
      <div className="row">
        <select value={expiry} onChange={(e) => setExpiry(e.target.value)} aria-label="Link expiry">
          <option value="">never expires</option>
          <option value="24">expires in 1 day</option>
          <option value="168">expires in 7 days</option>
        </select>
        <button className="btn" onClick={() => create.mutate({ runId, expiresInHours: expiry ? Number(expiry) : undefined })} disabled={create.isPending}>
          Create share link
        </button>
      </div>
      {created && (
        <p className="notice">
          Read-only link (shown once): <input readOnly value={created} data-testid="share-url" size={60} onFocus={(e) => e.currentTarget.select()} />
        </p>
      )}
      {create.error && <p className="error">{create.error.message}</p>}
      {links.data && links.data.length > 0 && (
        <table className="runs compact">
          <thead>
            <tr>
              <th>Created</th>
              <th>By</th>
              <th>Expires</th>
              <th>Last used</th>
              <th><span className="sr-only">actions</span></th>
            </tr>
          </thead>
          <tbody>
            {links.data.map((l) => (
              <tr key={l.id} data-testid="share-link-row">
                <td>{fmtTime(l.createdAt)}</td>
                <td>{l.createdBy.name}</td>
                <td>{l.expiresAt ? fmtTime(l.expiresAt) : "never"}</td>
                <td>{fmtTime(l.lastUsedAt)}</td>
                <td>
                  {l.revokedAt ? (
                    <span className="muted">revoked</span>
                  ) : (
                    <button className="btn danger" onClick={() => revoke.mutate({ id: l.id })}>
                      Revoke
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
