import { notFound } from "next/navigation";
import { principalFromShareToken } from "@evotrainer/api";
import { CompareView } from "~/components/compare/compare-view";
import { db } from "~/server/db";

export default async function SharedComparePage({ params, searchParams }: { params: Promise<{ token: string }>; searchParams: Promise<{ b?: string }> }) {
  const { token } = await params;
  const { b } = await searchParams;
  const principal = await principalFromShareToken(db, token);
  if (principal?.kind !== "share") notFound();
  return <CompareView runId={principal.runId} branchIds={(b ?? "").split(",").filter(Boolean)} basePath={`/share/${token}`} />;
}
