import { OrganizationsPanel } from "./organizations-panel";

export default function OrganizationsPage() {
  return (
    <main className="page wide">
      <h1>Organizations</h1>
      <OrganizationsPanel />
    </main>
  );
}
