import { DeadGroups } from "./dead-groups";
import { GroupView } from "./group-view";

/** A branch's GRPO groups: the one holding rollout `r` when asked, and the branch's dead groups. */
export function BranchGroups({ branchId, branchPath, r }: { branchId: string; branchPath: string; r: string | undefined }) {
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
