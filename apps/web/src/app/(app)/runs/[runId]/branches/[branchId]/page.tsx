import { BranchView } from "~/components/branch/branch-view";

export default async function BranchPage({ params }: { params: Promise<{ runId: string; branchId: string }> }) {
  const { runId, branchId } = await params;
  return <BranchView branchId={branchId} basePath={`/runs/${runId}`} readOnly={false} />;
}
