import { mkdtempSync, readFileSync, statSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createHTTPServer } from "@trpc/server/adapters/standalone";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { appRouter, createCallerFactory, createContext } from "@evotrainer/api";
import { createDatabase } from "@evotrainer/db";
import { createTestDatabase } from "@evotrainer/db/testing";
import { createProducerConnection, Producer } from "@evotrainer/queue";
import { runCli } from "../support/cli.ts";
import { seedDashboard } from "../support/dashboard-seed.ts";
import { deleteKeys, testPrefix } from "../support/redis-prefix.ts";

// The CLI on a laptop against a team's server: the real tRPC router over real HTTP (tRPC's own
// standalone adapter stands in for Next.js's route handler, which mounts the same router), the API
// key checked as the dashboard checks it. The CLI gets no database or Redis URL that works.
const database = await createTestDatabase(inject("databaseUrl"));
const db = createDatabase(database.url);
const redisUrl = inject("redisUrl");
const prefix = testPrefix();
const connection = createProducerConnection(redisUrl);
const producer = new Producer(connection, prefix);
const server = createHTTPServer({
  router: appRouter,
  basePath: "/api/trpc/",
  createContext: ({ req }) => createContext({ db, headers: new Headers(req.headers as Record<string, string>), producer: () => producer, sessionUserId: async () => null }),
});
let url: string;
let seed: Awaited<ReturnType<typeof seedDashboard>>;
const home = mkdtempSync(join(tmpdir(), "evo-remote-cli-"));
// Nothing local to fall back on: a command that touched the database would fail.
const laptop = { XDG_CONFIG_HOME: home, DATABASE_URL: "postgresql://nobody@127.0.0.1:1/none", REDIS_URL: "redis://127.0.0.1:1", EVO_API_KEY: "" };

async function keyOf(userId: string): Promise<string> {
  const caller = createCallerFactory(appRouter)(createContext({ db, headers: new Headers(), producer: () => producer, sessionUserId: async () => userId }));
  return (await caller.apiKey.create({ name: "laptop" })).key;
}

beforeAll(async () => {
  await connection.connect();
  seed = await seedDashboard(db, "remote-cli");
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((done) => server.close(done));
  await producer.close();
  connection.disconnect();
  await deleteKeys(redisUrl, `${prefix}:*`);
  await db.$disconnect();
  await database.drop();
});

describe("evotrainer login, then status, report, decide and run over HTTP", () => {
  it("refuses a bad key naming the server and the fix, and stores nothing", async () => {
    const refused = await runCli(["login", url, "--key", "evk_not-a-key"], laptop);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`${url} refused the API key`);
    expect(refused.stderr).toContain("Settings → API keys");
    const status = await runCli(["status"], laptop);
    // Not logged in: the CLI is local, and this laptop has no database.
    expect(status.code).toBe(1);
  }, 120_000);

  it("acts as the key's owner with that owner's role, and says which server a failure came from", async () => {
    const key = await keyOf(seed.users.approver.id);
    const login = await runCli(["login", `${url}/some/page`, "--key", key], laptop);
    expect(login.code, login.stderr).toBe(0);
    expect(login.stdout).toContain(`logged in to ${url} as ${seed.users.approver.email}`);
    const file = join(home, "evotrainer", "credentials.json");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ server: url, apiKey: key });

    const report = await runCli(["report", seed.run.id, "--json"], laptop);
    expect(report.code, report.stderr).toBe(0);
    expect((JSON.parse(report.stdout) as { branches: unknown[] }).branches).toHaveLength(5);
    expect((await runCli(["status", seed.run.id], laptop)).stdout).toContain(seed.run.id);

    const decided = await runCli(["decide", seed.branches.v2.id, "veto", "--note", "inside the noise"], laptop);
    expect(decided.code, decided.stderr).toBe(0);
    expect(decided.stdout).toContain(`on ${url}`);
    const veto = await db.decision.findFirstOrThrow({ where: { branchId: seed.branches.v2.id, kind: "veto" }, include: { user: true } });
    expect(veto.user?.email).toBe(seed.users.approver.email);
    expect(veto.reason).toBe("inside the noise");

    // Run control over HTTP: the seeded run is paused; resuming it is audited as the key's owner.
    expect((await runCli(["pause", seed.run.id], laptop)).stdout).toContain("already paused; nothing changed");
    const resumed = await runCli(["resume", seed.run.id], laptop);
    expect(resumed.stdout, resumed.stderr).toContain(`run ${seed.run.id} on ${url} resumed`);
    expect((await db.event.findFirstOrThrow({ where: { runId: seed.run.id, type: "run_resumed" } })).actor).toBe(`user:${seed.users.approver.id}`);

    const started = await runCli(["run", "examples/gym-math.yaml", "--json", "--org", seed.org.id], laptop);
    expect(started.code, started.stderr).toBe(0);
    const { runId } = JSON.parse(started.stdout) as { runId: string };
    expect((await db.run.findUniqueOrThrow({ where: { id: runId } })).organizationId).toBe(seed.org.id);

    // Imports read files into the database beside them: logged in, the CLI says where to run them instead.
    const imported = await runCli(["import", "mini-swe-agent", "tests/fixtures/real/swe-agent"], laptop);
    expect(imported.code).toBe(1);
    expect(imported.stderr).toContain(`logged in to ${url}: run it on that server, or \`evotrainer logout\``);

    const other = await seedDashboard(db, "remote-cli-elsewhere");
    const foreign = await runCli(["report", other.run.id], laptop);
    expect(foreign.code).toBe(1);
    expect(foreign.stderr).toContain(`${url}: run not found`);
  }, 180_000);

  it("a viewer's key reads but cannot decide; logout returns the CLI to local mode", async () => {
    const viewerHome = mkdtempSync(join(tmpdir(), "evo-remote-viewer-"));
    const env = { ...laptop, XDG_CONFIG_HOME: viewerHome };
    expect((await runCli(["login", url, "--key", await keyOf(seed.users.viewer.id)], env)).code).toBe(0);
    expect((await runCli(["status", seed.run.id], env)).code).toBe(0);
    const refused = await runCli(["decide", seed.branches.v1.id, "approve"], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(url);
    expect(refused.stderr).toMatch(/approver/);

    expect((await runCli(["logout"], env)).stdout).toContain("logged out");
    expect((await runCli(["status", seed.run.id], env)).stderr).not.toContain(url);
  }, 180_000);

  it("a server that is down is named, with what to do", async () => {
    const downHome = mkdtempSync(join(tmpdir(), "evo-remote-down-"));
    const key = await keyOf(seed.users.viewer.id);
    const env = { ...laptop, XDG_CONFIG_HOME: downHome, EVO_SERVER: "http://127.0.0.1:1", EVO_API_KEY: key };
    const down = await runCli(["status"], env);
    expect(down.code).toBe(1);
    expect(down.stderr).toContain("cannot reach http://127.0.0.1:1");
    expect(down.stderr).toContain("is the dashboard running there?");
  }, 120_000);
});
