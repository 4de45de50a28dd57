"use client";

import { useState } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { QueryState } from "~/components/query-state";
import { useTRPC } from "~/trpc/react";
import { useHydrated } from "~/lib/use-hydrated";

// Deliveries are retried in the background: keep the log live.
const REFRESH_MS = 3_000;

/** Webhooks are the organization's secrets: an admin manages them; anyone else is told who does. */
export function NotificationSettings() {
  const trpc = useTRPC();
  const me = useQuery(trpc.viewer.me.queryOptions());
  return (
    <QueryState isPending={me.isPending} error={me.error}>
      {() => {
        if (me.data!.memberships.some((m) => m.role === "admin")) return <ManageNotifications />;
        const roles = me.data!.memberships.map((m) => `${m.role} in ${m.organization.name}`).join(", ");
        return (
          <p className="panel" data-testid="notifications-admins-only">
            Webhooks and their delivery log are managed by your organization&apos;s admins{roles ? ` (you are ${roles})` : ""}: ask one of them to add a receiver.
          </p>
        );
      }}
    </QueryState>
  );
}

/** An organization's webhooks and the log of what was delivered to them. */
function ManageNotifications() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const webhooks = useQuery(trpc.notification.webhooks.queryOptions({}));
  const deliveries = useQuery({ ...trpc.notification.deliveries.queryOptions({}), refetchInterval: REFRESH_MS });
  const refresh = () => void queryClient.invalidateQueries();
  const hydrated = useHydrated();
  const [shownSecret, setShownSecret] = useState<string | null>(null);
  const create = useMutation(
    trpc.notification.createWebhook.mutationOptions({
      onSuccess: (created) => {
        setShownSecret(created.signingSecret);
        refresh();
      },
    }),
  );
  const remove = useMutation(trpc.notification.deleteWebhook.mutationOptions({ onSuccess: refresh }));
  const test = useMutation(trpc.notification.sendTest.mutationOptions({ onSuccess: refresh }));
  const error = create.error ?? remove.error ?? test.error;

  return (
    <>
      <section className="panel">
        <h2>Webhooks</h2>
        <p className="muted">
          Told when a branch awaits a decision, a run finishes, fails or pauses, a run has spent 80% of its budget, or a job fails for good. Generic receivers get
          JSON signed with <code>X-EvoTrainer-Signature: t=…,v1=…</code> (HMAC-SHA256 of <code>t.body</code>).
        </p>
        <QueryState isPending={webhooks.isPending} error={webhooks.error}>
          {() =>
            webhooks.data!.length === 0 ? (
              <div className="empty">No webhooks yet: add one below.</div>
            ) : (
              <table className="runs" data-testid="webhooks-table">
                <thead>
                  <tr>
                    <th>Name</th>
                    <th>Kind</th>
                    <th>Receiver</th>
                    <th><span className="sr-only">actions</span></th>
                  </tr>
                </thead>
                <tbody>
                  {webhooks.data!.map((w) => (
                    <tr key={w.id}>
                      <td>
                        <strong>{w.name}</strong>
                      </td>
                      <td>{w.kind === "slack" ? "Slack" : "generic JSON, signed"}</td>
                      <td>
                        <code>{w.urlOrigin}</code>
                      </td>
                      <td>
                        <button className="btn" disabled={test.isPending} onClick={() => test.mutate({ id: w.id })}>
                          Send test
                        </button>{" "}
                        <button className="btn danger" disabled={remove.isPending} onClick={() => remove.mutate({ id: w.id })}>
                          Delete
                        </button>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )
          }
        </QueryState>
        <form
          className="form"
          onSubmit={(e) => {
            e.preventDefault();
            const form = e.currentTarget;
            const fields = new FormData(form);
            create.mutate(
              { name: String(fields.get("name")), kind: fields.get("kind") === "generic" ? "generic" : "slack", url: String(fields.get("url")) },
              { onSuccess: () => form.reset() },
            );
          }}
        >
          <label>
            Name
            <input name="name" required maxLength={80} />
          </label>
          <label>
            Kind
            <select name="kind" defaultValue="slack">
              <option value="slack">Slack incoming webhook</option>
              <option value="generic">Generic JSON (signed)</option>
            </select>
          </label>
          <label>
            URL (kept sealed; only its origin is shown again)
            <input name="url" type="url" required />
          </label>
          <button className="btn primary" type="submit" disabled={!hydrated || create.isPending}>
            Add webhook
          </button>
        </form>
        {shownSecret && (
          <p className="panel" data-testid="signing-secret">
            Signing secret, shown once: configure your receiver with <code>{shownSecret}</code>
          </p>
        )}
        {error && (
          <p className="error" role="alert">
            {error.message}
          </p>
        )}
      </section>

      <section className="panel">
        <h2>Delivery log</h2>
        <QueryState isPending={deliveries.isPending} error={deliveries.error}>
          {() =>
            deliveries.data!.length === 0 ? (
              <div className="empty">Nothing delivered yet.</div>
            ) : (
              <table className="runs" data-testid="deliveries-table">
                <thead>
                  <tr>
                    <th>When</th>
                    <th>Webhook</th>
                    <th>Notification</th>
                    <th>Status</th>
                    <th>Attempts</th>
                    <th>Last error</th>
                  </tr>
                </thead>
                <tbody>
                  {deliveries.data!.map((d) => (
                    <tr key={d.id} data-testid="delivery-row">
                      <td>{new Date(d.createdAt).toLocaleString()}</td>
                      <td>{d.webhookName}</td>
                      <td>
                        <strong>{d.kind}</strong> <span className="muted">{d.summary}</span>
                      </td>
                      <td>
                        <span className={`pill ${d.status === "delivered" ? "ok" : d.status === "dead" ? "bad" : ""}`}>{d.status}</span>
                        {d.status === "pending" && d.nextAttemptAt ? <div className="muted">next try {new Date(d.nextAttemptAt).toLocaleTimeString()}</div> : null}
                      </td>
                      <td>
                        {d.attempts}
                        {d.lastStatus !== null ? <span className="muted"> (HTTP {d.lastStatus})</span> : null}
                      </td>
                      <td>{d.lastError ?? ""}</td>
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
