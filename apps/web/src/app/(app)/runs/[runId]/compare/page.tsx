import { CompareView } from "~/components/compare/compare-view";
import { foundOr404 } from "~/server/found-or-404";
import { getQueryClient, trpc } from "~/trpc/server";

export default async function ComparePage({ params, searchParams }: { params: Promise<{ runId: string }>; searchParams: Promise<{ b?: string }> }) {
  const { runId } = await params;
  const { b } = await searchParams;
  await foundOr404(() => getQueryClient().fetchQuery(trpc.run.byId.queryOptions({ runId })));
  return <CompareView runId={runId} branchIds={(b ?? "").split(",").filter(Boolean)} basePath={`/runs/${runId}`} />;
}
