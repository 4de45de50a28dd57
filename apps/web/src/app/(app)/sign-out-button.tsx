"use client";

import { authClient } from "~/lib/auth-client";

export function SignOutButton() {
  return (
    <button className="btn ghost" onClick={() => authClient.signOut().then(() => window.location.assign("/sign-in"))}>
      Sign out
    </button>
  );
}
