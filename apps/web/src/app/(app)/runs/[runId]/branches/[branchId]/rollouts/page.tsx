import { Suspense } from "react";
import { RolloutsExplorer } from "~/components/rollouts/rollouts-explorer";

export default async function RolloutsPage({ params }: { params: Promise<{ runId: string; branchId: string }> }) {
  const { runId, branchId } = await params;
  return (
    <Suspense fallback={<p className="muted page">Loading rollouts…</p>}>
      <RolloutsExplorer branchId={branchId} basePath={`/runs/${runId}`} readOnly={false} />
    </Suspense>
  );
}
