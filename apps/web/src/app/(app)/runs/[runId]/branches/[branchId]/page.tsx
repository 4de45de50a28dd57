import { notFound } from "next/navigation";
import { BranchView } from "~/components/branch/branch-view";
import { foundOr404 } from "~/server/found-or-404";
import { getQueryClient, HydrateClient, trpc } from "~/trpc/server";

export default async function BranchPage({ params }: { params: Promise<{ runId: string; branchId: string }> }) {
  const { runId, branchId } = await params;
  const branch = await foundOr404(() => getQueryClient().fetchQuery(trpc.branch.byId.queryOptions({ branchId })));
  if (branch.runId !== runId) notFound();
  return (
    <HydrateClient>
      <BranchView branchId={branchId} basePath={`/runs/${runId}`} readOnly={false} />
    </HydrateClient>
  );
}
