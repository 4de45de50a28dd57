import { notFound } from "next/navigation";
import { principalFromShareToken } from "@evotrainer/api";
import { ReviewQueue } from "~/components/labels/review-queue";
import { db } from "~/server/db";

/** The shared run's review queue, read-only: a share link sees the questions and the progress, never answers. */
export default async function SharedReviewQueuePage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  const principal = await principalFromShareToken(db, token);
  if (principal?.kind !== "share") notFound();
  return <ReviewQueue runId={principal.runId} />;
}
