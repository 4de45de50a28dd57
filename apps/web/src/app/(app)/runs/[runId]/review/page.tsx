import { ReviewQueue } from "~/components/labels/review-queue";
import { foundOr404 } from "~/server/found-or-404";
import { getQueryClient, trpc } from "~/trpc/server";

export default async function ReviewQueuePage({ params }: { params: Promise<{ runId: string }> }) {
  const { runId } = await params;
  await foundOr404(() => getQueryClient().fetchQuery(trpc.run.byId.queryOptions({ runId })));
  return <ReviewQueue runId={runId} />;
}
