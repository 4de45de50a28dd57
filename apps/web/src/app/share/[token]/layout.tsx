import type { ReactNode } from "react";
import { notFound } from "next/navigation";
import { principalFromShareToken } from "@evotrainer/api";
import { db } from "~/server/db";
import { TRPCReactProvider } from "~/trpc/react";

/** Shared pages: no account, no navigation, no mutation. A revoked or expired link is a 404. */
export default async function ShareLayout({ children, params }: { children: ReactNode; params: Promise<{ token: string }> }) {
  const { token } = await params;
  const principal = await principalFromShareToken(db, token);
  if (!principal) notFound();
  return (
    <>
      <header className="topbar">
        <span className="brand">EvoTrainer</span>
        <span className="pill">shared read-only view</span>
      </header>
      <TRPCReactProvider shareToken={token}>{children}</TRPCReactProvider>
    </>
  );
}
