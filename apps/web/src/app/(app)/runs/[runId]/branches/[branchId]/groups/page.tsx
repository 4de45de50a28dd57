import { BranchGroups } from "~/components/rollouts/branch-groups";

export default async function GroupsPage({ params, searchParams }: { params: Promise<{ runId: string; branchId: string }>; searchParams: Promise<{ r?: string }> }) {
  const { runId, branchId } = await params;
  const { r } = await searchParams;
  return <BranchGroups branchId={branchId} branchPath={`/runs/${runId}/branches/${branchId}`} r={r} />;
}
