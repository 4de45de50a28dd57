import { MembersPanel } from "./members-panel";

export default function MembersPage() {
  return (
    <main className="page wide">
      <h1>Members</h1>
      <MembersPanel />
    </main>
  );
}
