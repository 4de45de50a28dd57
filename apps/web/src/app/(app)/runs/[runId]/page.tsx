import { RunView } from "~/components/run/run-view";
import { foundOr404 } from "~/server/found-or-404";
import { getQueryClient, HydrateClient, trpc } from "~/trpc/server";

export default async function RunPage({ params }: { params: Promise<{ runId: string }> }) {
  const { runId } = await params;
  await foundOr404(() => getQueryClient().fetchQuery(trpc.run.byId.queryOptions({ runId })));
  return (
    <HydrateClient>
      <RunView runId={runId} basePath={`/runs/${runId}`} readOnly={false} />
    </HydrateClient>
  );
}
