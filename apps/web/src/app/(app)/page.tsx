import { Suspense } from "react";
import { connection } from "next/server";
import { runListInput } from "@evotrainer/api";
import { HydrateClient, prefetch, trpc } from "~/trpc/server";
import { RunsFilters } from "./runs-filters";
import { RunsTable } from "./runs-table";

export default async function RunsPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  // Runs come from the database at request time, never from a build-time snapshot.
  await connection();
  const parsed = runListInput.safeParse(Object.fromEntries(Object.entries(await searchParams).filter(([, v]) => typeof v === "string" && v !== "")));
  const input = parsed.success ? parsed.data : runListInput.parse(undefined);
  prefetch(trpc.run.list.queryOptions(input));
  return (
    <HydrateClient>
      <main className="page">
        <h1>Runs</h1>
        <RunsFilters input={input} />
        <Suspense fallback={<p className="muted">Loading runs…</p>}>
          <RunsTable input={input} />
        </Suspense>
      </main>
    </HydrateClient>
  );
}
