"use client";

import { useState } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { OnceLink } from "~/components/once-link";
import { QueryState } from "~/components/query-state";
import { useTRPC } from "~/trpc/react";

/** The installation's tenants; an installation admin creates one with the invitation link of its first admin. */
export function OrganizationsPanel() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const me = useQuery(trpc.viewer.me.queryOptions());
  const list = useQuery({ ...trpc.organization.list.queryOptions(), enabled: me.data?.installationAdmin === true });
  const [link, setLink] = useState<{ label: string; path: string; expiresAt: Date } | null>(null);
  const create = useMutation(
    trpc.organization.create.mutationOptions({
      onSuccess: (r) => {
        setLink({ label: `Organization ${r.organization.name} created. Invitation for its first admin, ${r.invitation.email}`, path: r.invitation.path, expiresAt: r.invitation.expiresAt });
        void queryClient.invalidateQueries({ queryKey: trpc.organization.list.queryKey() });
      },
    }),
  );

  return (
    <QueryState isPending={me.isPending} error={me.error}>
      {() =>
        !me.data!.installationAdmin ? (
          <p className="muted" data-testid="organizations-forbidden">
            Only an installation admin creates organizations. Ask yours to create one and send you its invitation link.
          </p>
        ) : (
          <>
            {create.error && (
              <p className="error" role="alert">
                {create.error.message}
              </p>
            )}
            {link && <OnceLink {...link} onClose={() => setLink(null)} />}
            <section className="panel">
              <h3>New organization</h3>
              <form
                className="row"
                onSubmit={(e) => {
                  e.preventDefault();
                  const form = new FormData(e.currentTarget);
                  create.mutate({ name: String(form.get("name")), adminEmail: String(form.get("adminEmail")) });
                  e.currentTarget.reset();
                }}
              >
                <input name="name" placeholder="Research team" required maxLength={100} aria-label="Organization name" />
                <input name="adminEmail" type="email" placeholder="lead@example.com" required aria-label="First admin's email" />
                <button className="btn primary" type="submit" disabled={create.isPending}>
                  {create.isPending ? "Creating…" : "Create organization"}
                </button>
              </form>
              <p className="muted">
                Each organization has its own members, runs, nodes and webhooks. Its first admin joins with the link shown once here (an existing account
                proves itself with its password), then invites the others.
              </p>
            </section>
            <QueryState isPending={list.isPending} error={list.error}>
              {() => (
                <table className="runs" data-testid="organizations-table">
                  <thead>
                    <tr>
                      <th>Name</th>
                      <th>Slug (--org)</th>
                      <th>Members</th>
                      <th>Created</th>
                    </tr>
                  </thead>
                  <tbody>
                    {list.data!.map((o) => (
                      <tr key={o.id} data-testid="organization-row">
                        <td>{o.name}</td>
                        <td>
                          <code>{o.slug}</code>
                        </td>
                        <td>{o.members}</td>
                        <td>{o.createdAt.toLocaleDateString()}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              )}
            </QueryState>
          </>
        )
      }
    </QueryState>
  );
}
