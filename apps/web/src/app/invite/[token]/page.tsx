import { headers } from "next/headers";
import { findInvitation, invitedAccount } from "@evotrainer/db";
import { sha256Hex } from "@evotrainer/api";
import { sessionUserId } from "~/server/auth";
import { db } from "~/server/db";
import { TRPCReactProvider } from "~/trpc/react";
import { AcceptInvitationForm } from "./accept-invitation-form";

export const dynamic = "force-dynamic";

/** Where an invitation link lands: the only way to sign up. A dead link says why and what to do. */
export default async function InvitePage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  const tokenHash = sha256Hex(token);
  const invitation = await findInvitation(db, tokenHash, new Date());
  // Whether the email has an account is not shown (whoever made the link may open it); only whether
  // the visitor is already signed in as it, in which case joining needs nothing more.
  const account = invitation.outcome === "valid" ? await invitedAccount(db, tokenHash) : null;
  const signedInAsInvitee = account !== null && (await sessionUserId(await headers())) === account.userId;
  return (
    <main className="page narrow">
      <h1>Join EvoTrainer</h1>
      {invitation.outcome === "refused" ? (
        <p className="error" role="alert" data-testid="link-refused">
          {invitation.message[0]!.toUpperCase() + invitation.message.slice(1)}.
        </p>
      ) : (
        <>
          <p>
            You are invited to <strong>{invitation.organizationName}</strong> as <strong>{invitation.role}</strong> ({roleMeaning[invitation.role]}).
          </p>
          <TRPCReactProvider>
            <AcceptInvitationForm token={token} email={invitation.email} signedInAsInvitee={signedInAsInvitee} />
          </TRPCReactProvider>
        </>
      )}
    </main>
  );
}

const roleMeaning = {
  viewer: "reads runs, branches and rollouts",
  approver: "reads runs; approves, revises and vetoes branches; shares runs",
  admin: "everything an approver does, and manages the organization's members",
} as const;
