import { ApprovalsInbox } from "./approvals-inbox";

export default function ApprovalsPage() {
  return (
    <main className="page wide">
      <h1>Approvals</h1>
      <ApprovalsInbox />
    </main>
  );
}
