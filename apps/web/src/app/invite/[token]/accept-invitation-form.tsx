"use client";

import { useState, type FormEvent } from "react";
import { useMutation } from "@tanstack/react-query";
import { authClient } from "~/lib/auth-client";
import { useTRPC } from "~/trpc/react";

/**
 * Joins through an invitation. Signed in as the invited email: one click. Otherwise one form serves
 * both cases without telling which applies: a new account takes a name and a new password; an
 * existing account proves itself with its current password (the name is then not needed).
 */
export function AcceptInvitationForm({ token, email, signedInAsInvitee }: { token: string; email: string; signedInAsInvitee: boolean }) {
  const trpc = useTRPC();
  const accept = useMutation(trpc.member.acceptInvitation.mutationOptions());
  const [error, setError] = useState<string | null>(null);

  async function join(input: { name?: string; password?: string }): Promise<boolean> {
    setError(null);
    try {
      await accept.mutateAsync({ token, ...input });
      return true;
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
      return false;
    }
  }

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const password = String(form.get("password") ?? "");
    const name = String(form.get("name") ?? "").trim();
    if (!(await join({ password, ...(name ? { name } : {}) }))) return;
    const signedIn = await authClient.signIn.email({ email, password });
    window.location.assign(signedIn.error ? "/sign-in?next=/approvals" : "/approvals");
  }

  if (signedInAsInvitee) {
    return (
      <div className="form">
        <p>
          You are signed in as <strong>{email}</strong>: join with this account.
        </p>
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
        <button className="btn primary" disabled={accept.isPending} onClick={() => void join({}).then((ok) => ok && window.location.assign("/approvals"))}>
          {accept.isPending ? "Joining…" : "Join"}
        </button>
      </div>
    );
  }

  return (
    <form className="form" method="post" onSubmit={onSubmit}>
      <p className="muted" data-testid="existing-account-note">
        Already have an EvoTrainer account with {email}? Type its current password to join with it (no name needed), or{" "}
        <a href={`/sign-in?next=${encodeURIComponent(`/invite/${token}`)}`}>sign in</a> first. Otherwise choose your name and a password to create
        your account.
      </p>
      <label>
        Email
        <input name="email" type="email" value={email} readOnly autoComplete="username" />
      </label>
      <label>
        Your name (for a new account)
        <input name="name" autoComplete="name" maxLength={100} />
      </label>
      <label>
        Choose a password (8 characters or more), or type your current one
        <input name="password" type="password" required maxLength={128} autoComplete="current-password" />
      </label>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      <button className="btn primary" type="submit" disabled={accept.isPending}>
        {accept.isPending ? "Joining…" : "Join"}
      </button>
    </form>
  );
}
