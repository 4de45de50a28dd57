import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { createHTTPServer } from "@trpc/server/adapters/standalone";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { appRouter, createContext, createLocalUser, ensureLocalAdmin } from "@evotrainer/api";
import { apiHarness } from "../support/api-harness.ts";
import { CLI, runCli } from "../support/cli.ts";
import { SEED_PASSWORD } from "../support/dashboard-seed.ts";

// `evotrainer labels unexplained` against the branch page's own procedure (unexplained.clusters), on
// a branch of real SWE-bench agent trajectories imported with the real CLI and labelled at import:
// locally as the local admin, and from a laptop over HTTP with a viewer's API key.
const redisUrl = inject("redisUrl");
const harness = await apiHarness(inject("databaseUrl"), redisUrl);
const { db } = harness;
const home = mkdtempSync(join(tmpdir(), "evo-labels-unexplained-"));
const localHome = join(home, "local");
const laptopHome = join(home, "laptop");
// Without EVO_SERVER and EVO_API_KEY, and with a config folder of its own (no saved login), the CLI acts locally as the local admin.
const { EVO_SERVER: _server, EVO_API_KEY: _key, ...inherited } = process.env;
const local = (...args: string[]) =>
  spawnSync(process.execPath, [CLI, ...args], {
    env: { ...inherited, DATABASE_URL: harness.database.url, REDIS_URL: redisUrl, EVO_QUEUE_PREFIX: harness.prefix, XDG_CONFIG_HOME: localHome },
    encoding: "utf8",
  });
// Nothing local to fall back on: a command that touched the database would fail.
const laptop = { XDG_CONFIG_HOME: laptopHome, DATABASE_URL: "postgresql://nobody@127.0.0.1:1/none", REDIS_URL: "redis://127.0.0.1:1", EVO_API_KEY: "", EVO_SERVER: "" };
const server = createHTTPServer({
  router: appRouter,
  basePath: "/api/trpc/",
  createContext: ({ req }) => createContext({ db, headers: new Headers(req.headers as Record<string, string>), producer: () => harness.producer, sessionUserId: async () => null }),
});
let url: string;
let branchId: string;
let adminId: string;
let viewerId: string;

/** An API result as the command prints it with --json: plain JSON. */
const asJson = (value: unknown) => JSON.parse(JSON.stringify(value)) as unknown;
const percent = (x: number) => `${(x * 100).toFixed(1)}%`;

beforeAll(async () => {
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const lines = gunzipSync(readFileSync("tests/fixtures/real/mini-swe-agent-gemini-3-pro-dev150.jsonl.gz")).toString("utf8").trim().split("\n");
  const file = join(home, "swe.jsonl");
  writeFileSync(file, `${lines.slice(0, 60).join("\n")}\n`);
  const imported = local("import", "mini-swe-agent", file, "--json");
  expect(imported.status, imported.stderr).toBe(0);
  branchId = (JSON.parse(imported.stdout) as { branchId: string }).branchId;
  // The account the local CLI acts as (created by the first command that needs someone to act as).
  adminId = (await ensureLocalAdmin(db)).userId;
  const branch = await db.branch.findUniqueOrThrow({ where: { id: branchId }, select: { run: { select: { organizationId: true } } } });
  const viewer = await createLocalUser(db, { email: `unexplained-cli-viewer-${process.pid}@example.test`, name: "Viewer", password: SEED_PASSWORD, organizationId: branch.run.organizationId, role: "viewer" });
  viewerId = viewer.id;
}, 300_000);

afterAll(async () => {
  await new Promise((done) => server.close(done));
  rmSync(home, { recursive: true, force: true });
  await harness.close();
});

describe("evotrainer labels unexplained <branchId>", () => {
  it("prints locally the branch page's clusters: the API's object with --json, and per cluster its size, share, signature and examples", async () => {
    const expected = await harness.callerAs({ userId: adminId }).unexplained.clusters({ branchId });
    expect(expected.unexplained).toBeGreaterThan(0);
    expect(expected.clusters.length).toBeGreaterThan(1);

    const json = local("labels", "unexplained", branchId, "--json");
    expect(json.status, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual(asJson(expected));

    const text = local("labels", "unexplained", branchId);
    expect(text.status, text.stderr).toBe(0);
    const lines = text.stdout.trimEnd().split("\n");
    expect(lines[0]).toBe(
      `branch ${branchId} · harness v1 · 60 rollouts, ${expected.failures} failed, ${expected.unexplained} with no explaining label (${percent(expected.unexplained / expected.failures)} of failures) in ${expected.clusters.length} clusters`,
    );
    const clusterLines = lines.slice(1);
    expect(clusterLines).toHaveLength(expected.clusters.length * 2);
    expected.clusters.forEach((c, i) => {
      expect(clusterLines[2 * i]).toBe(`${c.count} · ${percent(c.shareOfFailures)} of failures · ${c.key}`);
      expect(clusterLines[2 * i + 1]).toBe(`    e.g. ${c.examples.map((e) => e.uid).join(", ")}`);
      expect(c.examples.length).toBeGreaterThan(0);
    });
  }, 300_000);

  it("with --only-separating sets aside the labels that do not separate failures from successes, as the page's tick box does", async () => {
    const expected = await harness.callerAs({ userId: adminId }).unexplained.clusters({ branchId, onlySeparatingLabels: true });
    expect(expected.ignoredLabels.length).toBeGreaterThan(0);
    const json = local("labels", "unexplained", branchId, "--only-separating", "--json");
    expect(json.status, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual(asJson(expected));
    const text = local("labels", "unexplained", branchId, "--only-separating");
    expect(text.stdout.split("\n")[1]).toBe(`labels not counted as explaining (they do not separate failures from successes): ${expected.ignoredLabels.join(", ")}`);
  }, 300_000);

  it("goes to the server after login, as the API key's owner, and names a branch it cannot see", async () => {
    const key = (await harness.callerAs({ userId: viewerId }).apiKey.create({ name: "laptop" })).key;
    const login = await runCli(["login", url, "--key", key], laptop);
    expect(login.code, login.stderr).toBe(0);
    const expected = await harness.callerAs({ userId: viewerId }).unexplained.clusters({ branchId });
    expect(expected.role).toBe("viewer");
    const json = await runCli(["labels", "unexplained", branchId, "--json"], laptop);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual(asJson(expected));
    const text = await runCli(["labels", "unexplained", branchId], laptop);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain(`${expected.clusters[0]!.count} · ${percent(expected.clusters[0]!.shareOfFailures)} of failures · ${expected.clusters[0]!.key}\n`);

    const missing = await runCli(["labels", "unexplained", "no-such-branch"], laptop);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`${url}: branch not found`);
  }, 300_000);
});
