import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

// A worker's reconcile sweep drives every unfinished run of its database. A file that starts one on
// the run's shared database acts on other files' runs, and they on its: CI met that as a cancellation
// event gone missing and a jobs folder written into during cleanup. This guard keeps it from coming back.
const dir = "tests/integration";
const startsWorker = /startWorkerApp\(|startWorkerProcess\(|\[WORKER\b/;
const ownDatabase = /createTestDatabase\(|apiHarness\(/;

describe("every integration file that starts a worker has a database of its own", () => {
  const files = readdirSync(dir).filter((name) => name.endsWith(".test.ts"));
  const withWorkers = files.filter((name) => startsWorker.test(readFileSync(join(dir, name), "utf8")));

  it("finds the files that start workers", () => {
    expect(withWorkers).toContain("gym-run.test.ts");
    expect(withWorkers).toContain("chaos.test.ts");
  });

  it.each(withWorkers)("%s", (name) => {
    const isolated = ownDatabase.test(readFileSync(join(dir, name), "utf8"));
    expect(isolated, `${name} starts a worker on the shared database; give it createTestDatabase(inject("databaseUrl"))`).toBe(true);
  });
});
