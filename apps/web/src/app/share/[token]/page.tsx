import { notFound } from "next/navigation";
import { principalFromShareToken } from "@evotrainer/api";
import { RunView } from "~/components/run/run-view";
import { db } from "~/server/db";

export default async function SharedRunPage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  const principal = await principalFromShareToken(db, token);
  if (principal?.kind !== "share") notFound();
  return <RunView runId={principal.runId} basePath={`/share/${token}`} readOnly />;
}
