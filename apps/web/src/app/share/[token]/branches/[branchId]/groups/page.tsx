import { BranchGroups } from "~/components/rollouts/branch-groups";

export default async function SharedGroupsPage({ params, searchParams }: { params: Promise<{ token: string; branchId: string }>; searchParams: Promise<{ r?: string }> }) {
  const { token, branchId } = await params;
  const { r } = await searchParams;
  return <BranchGroups branchId={branchId} branchPath={`/share/${token}/branches/${branchId}`} r={r} />;
}
