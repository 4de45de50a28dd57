import pg from "pg";
import { afterAll, describe, expect, inject, it } from "vitest";
import { ServiceStatus } from "@evotrainer/core";
import { createDatabase } from "@evotrainer/db";
import { createTestDatabase } from "@evotrainer/db/testing";
import { until } from "../support/until.ts";

// Only this file's own database's backends are ended; the shared server keeps running.
const database = await createTestDatabase(inject("databaseUrl"));

describe("a Prisma client over an owned pg pool, its idle connections ended by the server (pg_terminate_backend)", () => {
  afterAll(() => database.drop());

  it("stays alive, says the outage once, and answers the next query", async () => {
    const lines: string[] = [];
    const status = new ServiceStatus("PostgreSQL", "test", { meanwhile: "retrying", resumed: "carrying on" }, (line) => lines.push(line));
    // One connection: with several, the next query can be handed an idle one whose end the pool has not
    // read yet, and fail with 57P01 (callers retry that through whileUnreachable; this test asks for more).
    const db = createDatabase(database.url, { status, max: 1 });
    try {
      await Promise.all([db.run.count(), db.branch.count(), db.event.count()]);
      const admin = new pg.Client({ connectionString: database.url });
      await admin.connect();
      const { rowCount } = await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()");
      await admin.end();
      expect(rowCount).toBeGreaterThan(0);
      // The idle clients' 'error' events arrive on the pool: heard, not thrown.
      await until("the pool to hear its connections end", async () => !status.state.reachable);
      expect(await db.run.count()).toBe(0);
      expect(status.state.reachable).toBe(true);
      expect(lines).toEqual([expect.stringMatching(/^PostgreSQL at test is unreachable; retrying \(terminating connection due to administrator command\)$/), "PostgreSQL at test answers again; carrying on"]);
    } finally {
      await db.$disconnect();
    }
  });
});
