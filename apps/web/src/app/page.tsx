import { Suspense } from "react";
import { connection } from "next/server";
import { HydrateClient, prefetch, trpc } from "~/trpc/server";
import { RunsTable } from "./runs-table";

export default async function RunsPage() {
  // Runs come from the database at request time, never from a build-time snapshot.
  await connection();
  prefetch(trpc.run.list.queryOptions({}));
  return (
    <HydrateClient>
      <main className="page">
        <h1>Runs</h1>
        <Suspense fallback={<p className="muted">Loading runs…</p>}>
          <RunsTable />
        </Suspense>
      </main>
    </HydrateClient>
  );
}
