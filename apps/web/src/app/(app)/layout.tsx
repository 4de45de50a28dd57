import type { ReactNode } from "react";
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { INSTALLATION_ADMIN_ROLE } from "@evotrainer/db";
import { getAuth } from "~/server/auth";
import { TRPCReactProvider } from "~/trpc/react";
import { SignOutButton } from "./sign-out-button";

export default async function AppLayout({ children }: { children: ReactNode }) {
  // The proxy only saw a cookie; this checks that it is a live session.
  const requestHeaders = await headers();
  const session = await getAuth(requestHeaders).api.getSession({ headers: requestHeaders });
  if (!session) redirect("/sign-in");
  return (
    <>
      {/* Keyboard users skip the eight navigation links straight to the page. */}
      <a href="#content" className="skip-link">
        Skip to content
      </a>
      <header className="topbar">
        <a href="/" className="brand">
          EvoTrainer
        </a>
        <nav className="nav">
          <a href="/">Runs</a>
          <a href="/approvals">Approvals</a>
          <a href="/harness">Harness</a>
          <a href="/skills">Skills</a>
          <a href="/nodes">Nodes</a>
          <a href="/settings/members">Members</a>
          <a href="/settings/api-keys">API keys</a>
          <a href="/settings/notifications">Notifications</a>
          {(session.user as { role?: string | null }).role === INSTALLATION_ADMIN_ROLE && <a href="/settings/organizations">Organizations</a>}
        </nav>
        <span className="spacer" />
        <span className="muted signed-in-as" data-testid="signed-in-as" title={session.user.email}>
          {session.user.email}
        </span>
        <SignOutButton />
      </header>
      <div id="content" tabIndex={-1}>
        <TRPCReactProvider>{children}</TRPCReactProvider>
      </div>
    </>
  );
}
