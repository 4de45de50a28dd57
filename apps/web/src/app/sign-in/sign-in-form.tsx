"use client";

import { useState, type FormEvent } from "react";
import { authClient } from "~/lib/auth-client";

/**
 * Signs in from the page's script; without it (scripts off, or a submit before hydration) the form
 * itself posts to /api/sign-in. Never a GET: the password would land in the URL, the history and logs.
 */
export function SignInForm({ next, serverError }: { next: string; serverError: string | null }) {
  const [error, setError] = useState<string | null>(serverError);
  const [pending, setPending] = useState(false);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setPending(true);
    setError(null);
    const result = await authClient.signIn.email({ email: String(form.get("email")), password: String(form.get("password")) });
    setPending(false);
    if (result.error) setError(result.error.message ?? "Sign-in failed");
    else window.location.assign(next);
  }

  return (
    <form className="form" method="post" action="/api/sign-in" onSubmit={onSubmit}>
      <input type="hidden" name="next" value={next} />
      <label>
        Email
        <input name="email" type="email" autoComplete="username" required />
      </label>
      <label>
        Password
        <input name="password" type="password" autoComplete="current-password" required />
      </label>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      <button className="btn primary" type="submit" disabled={pending}>
        {pending ? "Signing in…" : "Sign in"}
      </button>
    </form>
  );
}
