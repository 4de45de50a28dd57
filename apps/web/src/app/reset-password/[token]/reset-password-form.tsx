"use client";

import { useState, type FormEvent } from "react";
import { useMutation } from "@tanstack/react-query";
import { authClient } from "~/lib/auth-client";
import { useTRPC } from "~/trpc/react";

/** Sets the password (which signs the account out everywhere), then signs in here with it. */
export function ResetPasswordForm({ token, email }: { token: string; email: string }) {
  const trpc = useTRPC();
  const reset = useMutation(trpc.member.completePasswordReset.mutationOptions());
  const [error, setError] = useState<string | null>(null);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const password = String(new FormData(event.currentTarget).get("password"));
    setError(null);
    try {
      await reset.mutateAsync({ token, password });
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
      return;
    }
    const signedIn = await authClient.signIn.email({ email, password });
    window.location.assign(signedIn.error ? "/sign-in" : "/");
  }

  return (
    <form className="form" onSubmit={onSubmit}>
      <label>
        Email
        <input name="email" type="email" value={email} readOnly autoComplete="username" />
      </label>
      <label>
        New password (8 characters or more)
        <input name="password" type="password" required minLength={8} autoComplete="new-password" />
      </label>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      <button className="btn primary" type="submit" disabled={reset.isPending}>
        {reset.isPending ? "Saving…" : "Set password and sign in"}
      </button>
    </form>
  );
}
