import { BranchView } from "~/components/branch/branch-view";

export default async function SharedBranchPage({ params }: { params: Promise<{ token: string; branchId: string }> }) {
  const { token, branchId } = await params;
  return <BranchView branchId={branchId} basePath={`/share/${token}`} readOnly />;
}
