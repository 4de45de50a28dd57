"use client";

import { useState } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "~/trpc/react";
import { fmtTime } from "~/components/format";
import { QueryState } from "~/components/query-state";
import { useHydrated } from "~/lib/use-hydrated";

/** Create (the key shown once, with the login command), list and revoke one's own API keys. */
export function ApiKeysPanel() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const keys = useQuery(trpc.apiKey.list.queryOptions());
  const hydrated = useHydrated();
  const [created, setCreated] = useState<string | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.apiKey.list.queryKey() });
  const create = useMutation(
    trpc.apiKey.create.mutationOptions({
      onSuccess: (key) => {
        setCreated(key.key);
        void refresh();
      },
    }),
  );
  const revoke = useMutation(trpc.apiKey.revoke.mutationOptions({ onSuccess: () => void refresh() }));
  return (
    <>
      <section className="panel">
        <h3>New key</h3>
        <form
          className="row"
          onSubmit={(e) => {
            e.preventDefault();
            const form = e.currentTarget;
            const fields = new FormData(form);
            const expiry = String(fields.get("expiry"));
            create.mutate(
              { name: String(fields.get("name")).trim(), expiresInDays: expiry ? Number(expiry) : undefined },
              { onSuccess: () => form.reset() },
            );
          }}
        >
          <input name="name" placeholder="what it is for (e.g. laptop)" aria-label="Key name" required pattern=".*\S.*" maxLength={100} />
          <select name="expiry" defaultValue="" aria-label="Key expiry">
            <option value="">never expires</option>
            <option value="30">expires in 30 days</option>
            <option value="90">expires in 90 days</option>
          </select>
          <button className="btn" type="submit" disabled={!hydrated || create.isPending}>
            Create key
          </button>
        </form>
        {create.error && <p className="error">{create.error.message}</p>}
        {created && (
          <div className="notice" data-testid="new-api-key">
            <p>Copy it now: it is not shown again.</p>
            <input readOnly value={created} size={60} aria-label="New API key" onFocus={(e) => e.currentTarget.select()} />
            <p>
              <code data-testid="login-command">
                evotrainer login {window.location.origin} --key {created}
              </code>
            </p>
          </div>
        )}
      </section>
      <section className="panel">
        <h3>Your keys</h3>
        <QueryState isPending={keys.isPending} error={keys.error}>
          {() =>
            keys.data!.length === 0 ? (
              <p className="muted">No keys yet.</p>
            ) : (
              <table className="runs compact">
                <thead>
                  <tr>
                    <th>Name</th>
                    <th>Starts with</th>
                    <th>Created</th>
                    <th>Expires</th>
                    <th>Last used</th>
                    <th><span className="sr-only">actions</span></th>
                  </tr>
                </thead>
                <tbody>
                  {keys.data!.map((k) => (
                    <tr key={k.id} data-testid="api-key-row">
                      <td>{k.name}</td>
                      <td>
                        <code>{k.start}…</code>
                      </td>
                      <td>{fmtTime(k.createdAt)}</td>
                      <td>{k.expiresAt ? fmtTime(k.expiresAt) : "never"}</td>
                      <td>{fmtTime(k.lastUsedAt)}</td>
                      <td>
                        {k.enabled ? (
                          <button className="btn danger small" onClick={() => revoke.mutate({ id: k.id })}>
                            Revoke
                          </button>
                        ) : (
                          <span className="muted">revoked</span>
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )
          }
        </QueryState>
      </section>
    </>
  );
}
