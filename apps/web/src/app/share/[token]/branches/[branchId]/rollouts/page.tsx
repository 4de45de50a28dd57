import { Suspense } from "react";
import { RolloutsExplorer } from "~/components/rollouts/rollouts-explorer";

export default async function SharedRolloutsPage({ params }: { params: Promise<{ token: string; branchId: string }> }) {
  const { token, branchId } = await params;
  return (
    <Suspense fallback={<p className="muted page">Loading rollouts…</p>}>
      <RolloutsExplorer branchId={branchId} basePath={`/share/${token}`} readOnly />
    </Suspense>
  );
}
