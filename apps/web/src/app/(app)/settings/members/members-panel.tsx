"use client";

import { useState } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { OnceLink } from "~/components/once-link";
import { QueryState } from "~/components/query-state";
import { useTRPC } from "~/trpc/react";

const ROLES = ["viewer", "approver", "admin"] as const;
type Role = (typeof ROLES)[number];

/** The organizations the signed-in person belongs to; a picker appears only with more than one. */
export function MembersPanel() {
  const trpc = useTRPC();
  const me = useQuery(trpc.viewer.me.queryOptions());
  const [chosen, setChosen] = useState<string | null>(null);
  return (
    <QueryState isPending={me.isPending} error={me.error}>
      {() => {
        const orgs = me.data!.memberships.map((m) => m.organization);
        const organizationId = chosen ?? orgs[0]?.id;
        if (!organizationId) return <div className="empty">You are not a member of any organization.</div>;
        return (
          <>
            {orgs.length > 1 && (
              <label className="row">
                Organization
                <select value={organizationId} onChange={(e) => setChosen(e.target.value)}>
                  {orgs.map((o) => (
                    <option key={o.id} value={o.id}>
                      {o.name}
                    </option>
                  ))}
                </select>
              </label>
            )}
            <OrganizationMembers organizationId={organizationId} myUserId={me.data!.id} />
          </>
        );
      }}
    </QueryState>
  );
}

function OrganizationMembers({ organizationId, myUserId }: { organizationId: string; myUserId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const list = useQuery(trpc.member.list.queryOptions({ organizationId }));
  const [link, setLink] = useState<{ label: string; path: string; expiresAt: Date } | null>(null);
  const refresh = { onSuccess: () => void queryClient.invalidateQueries({ queryKey: trpc.member.list.queryKey() }) };
  const invite = useMutation(
    trpc.member.invite.mutationOptions({
      onSuccess: (r) => {
        setLink({ label: `Invitation for ${r.email} as ${r.role}`, path: r.path, expiresAt: r.expiresAt });
        refresh.onSuccess();
      },
    }),
  );
  const changeRole = useMutation(trpc.member.changeRole.mutationOptions(refresh));
  const remove = useMutation(trpc.member.remove.mutationOptions(refresh));
  const cancel = useMutation(trpc.member.cancelInvitation.mutationOptions(refresh));
  const reset = useMutation(
    trpc.member.createPasswordReset.mutationOptions({ onSuccess: (r) => setLink({ label: `Password-reset link for ${r.email}`, path: r.path, expiresAt: r.expiresAt }) }),
  );
  const error = invite.error ?? changeRole.error ?? remove.error ?? cancel.error ?? reset.error;

  return (
    <QueryState isPending={list.isPending} error={list.error}>
      {() => {
        const { callerRole, members, invitations } = list.data!;
        const isAdmin = callerRole === "admin";
        return (
          <>
            {!isAdmin && (
              <p className="muted" data-testid="members-read-only">
                You are {callerRole === "approver" ? "an approver" : "a viewer"} here: only admins invite members or change roles.
              </p>
            )}
            {error && (
              <p className="error" role="alert">
                {error.message}
              </p>
            )}
            {link && <OnceLink {...link} onClose={() => setLink(null)} />}
            {isAdmin && (
              <section className="panel">
                <h3>Invite by link</h3>
                <form
                  className="row"
                  onSubmit={(e) => {
                    e.preventDefault();
                    const form = new FormData(e.currentTarget);
                    invite.mutate({ organizationId, email: String(form.get("email")), role: String(form.get("role")) as Role });
                    e.currentTarget.reset();
                  }}
                >
                  <input name="email" type="email" placeholder="colleague@example.com" required aria-label="Email to invite" />
                  <select name="role" defaultValue="approver" aria-label="Role">
                    {ROLES.map((r) => (
                      <option key={r} value={r}>
                        {r}
                      </option>
                    ))}
                  </select>
                  <button className="btn primary" type="submit" disabled={invite.isPending}>
                    {invite.isPending ? "Creating link…" : "Create invitation link"}
                  </button>
                </form>
                <p className="muted">Viewers read; approvers also decide on branches and share runs; admins also manage members. Links expire after 72 hours.</p>
              </section>
            )}
            <table className="runs" data-testid="members-table">
              <thead>
                <tr>
                  <th>Name</th>
                  <th>Email</th>
                  <th>Role</th>
                  <th>Member since</th>
                  {isAdmin && <th><span className="sr-only">actions</span></th>}
                </tr>
              </thead>
              <tbody>
                {members.map((m) => (
                  <tr key={m.userId} data-testid="member-row">
                    <td>{m.name}</td>
                    <td>{m.email}</td>
                    <td>
                      {isAdmin ? (
                        <select
                          aria-label={`Role of ${m.email}`}
                          value={m.role}
                          disabled={changeRole.isPending}
                          onChange={(e) => changeRole.mutate({ organizationId, userId: m.userId, role: e.target.value as Role })}
                        >
                          {ROLES.map((r) => (
                            <option key={r} value={r}>
                              {r}
                            </option>
                          ))}
                        </select>
                      ) : (
                        m.role
                      )}
                    </td>
                    <td>{m.joinedAt.toLocaleDateString()}</td>
                    {isAdmin && (
                      <td className="row">
                        <button className="btn ghost" onClick={() => reset.mutate({ organizationId, userId: m.userId })}>
                          Reset password link
                        </button>
                        {m.userId !== myUserId && (
                          <button
                            className="btn danger"
                            onClick={() => window.confirm(`Remove ${m.email} from the organization?`) && remove.mutate({ organizationId, userId: m.userId })}
                          >
                            Remove
                          </button>
                        )}
                      </td>
                    )}
                  </tr>
                ))}
              </tbody>
            </table>
            {isAdmin && invitations.length > 0 && (
              <section className="panel">
                <h3>Pending invitations</h3>
                <ul>
                  {invitations.map((i) => (
                    <li key={i.id} className="row">
                      {i.email} as {i.role}, link valid until {i.expiresAt.toLocaleString()}
                      <button className="btn ghost" onClick={() => cancel.mutate({ organizationId, invitationId: i.id })}>
                        Cancel
                      </button>
                    </li>
                  ))}
                </ul>
              </section>
            )}
          </>
        );
      }}
    </QueryState>
  );
}
