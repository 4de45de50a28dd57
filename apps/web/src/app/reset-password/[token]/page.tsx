import { findPasswordReset } from "@evotrainer/db";
import { sha256Hex } from "@evotrainer/api";
import { db } from "~/server/db";
import { TRPCReactProvider } from "~/trpc/react";
import { ResetPasswordForm } from "./reset-password-form";

export const dynamic = "force-dynamic";

/** Where an admin's password-reset link lands. */
export default async function ResetPasswordPage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  const reset = await findPasswordReset(db, sha256Hex(token), new Date());
  return (
    <main className="page narrow">
      <h1>Set a new password</h1>
      {reset.outcome === "refused" ? (
        <p className="error" role="alert" data-testid="link-refused">
          {reset.message[0]!.toUpperCase() + reset.message.slice(1)}.
        </p>
      ) : (
        <TRPCReactProvider>
          <ResetPasswordForm token={token} email={reset.email} />
        </TRPCReactProvider>
      )}
    </main>
  );
}
