import { DeadGroups } from "~/components/rollouts/dead-groups";
import { GroupView } from "~/components/rollouts/group-view";

export default async function GroupsPage({ params, searchParams }: { params: Promise<{ runId: string; branchId: string }>; searchParams: Promise<{ r?: string }> }) {
  const { runId, branchId } = await params;
  const { r } = await searchParams;
  const branchPath = `/runs/${runId}/branches/${branchId}`;
  return (
    <main className="page wide">
      <header className="run-header">
        <a href={branchPath}>← branch</a>
        <h1>GRPO groups</h1>
      </header>
      {r && /^\d+$/.test(r) && <GroupView rolloutId={r} rolloutsPath={`${branchPath}/rollouts`} />}
      <DeadGroups branchId={branchId} groupsPath={`${branchPath}/groups`} />
    </main>
  );
}
