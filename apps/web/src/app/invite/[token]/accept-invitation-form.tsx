"use client";

import { useState, type FormEvent } from "react";
import { useMutation } from "@tanstack/react-query";
import { authClient } from "~/lib/auth-client";
import { useTRPC } from "~/trpc/react";

/** Creates the account (or joins with an existing one), then signs in and opens the approvals inbox. */
export function AcceptInvitationForm({ token, email, existingAccount }: { token: string; email: string; existingAccount: boolean }) {
  const trpc = useTRPC();
  const accept = useMutation(trpc.member.acceptInvitation.mutationOptions());
  const [error, setError] = useState<string | null>(null);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const password = String(form.get("password"));
    setError(null);
    try {
      await accept.mutateAsync({ token, name: String(form.get("name") ?? ""), password });
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
      return;
    }
    const signedIn = await authClient.signIn.email({ email, password });
    if (signedIn.error) window.location.assign("/sign-in?next=/approvals");
    else window.location.assign("/approvals");
  }

  return (
    <form className="form" onSubmit={onSubmit}>
      <label>
        Email
        <input name="email" type="email" value={email} readOnly autoComplete="username" />
      </label>
      {existingAccount ? (
        <p className="muted">This email already has an account: confirm with its password to join.</p>
      ) : (
        <label>
          Your name
          <input name="name" required autoComplete="name" maxLength={100} />
        </label>
      )}
      <label>
        {existingAccount ? "Password" : "Choose a password (8 characters or more)"}
        <input name="password" type="password" required minLength={existingAccount ? 1 : 8} autoComplete={existingAccount ? "current-password" : "new-password"} />
      </label>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      <button className="btn primary" type="submit" disabled={accept.isPending}>
        {accept.isPending ? "Joining…" : existingAccount ? "Join" : "Create account and join"}
      </button>
    </form>
  );
}
