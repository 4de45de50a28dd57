import { NodesTable } from "./nodes-table";

export default function NodesPage() {
  return (
    <main className="page wide">
      <h1>GPU nodes</h1>
      <NodesTable />
    </main>
  );
}
