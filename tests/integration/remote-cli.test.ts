import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createHTTPServer } from "@trpc/server/adapters/standalone";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { appRouter, createCallerFactory, createContext } from "@evotrainer/api";
import { TRPC_BODY_LIMIT_BYTES } from "@evotrainer/api/body-limit";
import { createDatabase } from "@evotrainer/db";
import { createIngestPool } from "@evotrainer/db/ingest";
import { createTestDatabase } from "@evotrainer/db/testing";
import { createProducerConnection, Producer } from "@evotrainer/queue";
import { runCli, runProgram } from "../support/cli.ts";
import { docCommands } from "../support/doc-commands.ts";
import { seedDashboard } from "../support/dashboard-seed.ts";
import { deleteKeys, testPrefix } from "../support/redis-prefix.ts";

// The CLI on a laptop against a team's server: the real tRPC router over real HTTP (tRPC's own
// standalone adapter stands in for Next.js's route handler, which mounts the same router), the API
// key checked as the dashboard checks it. The CLI gets no database or Redis URL that works.
const database = await createTestDatabase(inject("databaseUrl"));
const db = createDatabase(database.url);
const redisUrl = inject("redisUrl");
const prefix = testPrefix();
const ingestPool = createIngestPool(database.url);
const connection = createProducerConnection(redisUrl);
const producer = new Producer(connection, prefix);
const server = createHTTPServer({
  router: appRouter,
  basePath: "/api/trpc/",
  // The limit the dashboard's route enforces on every request.
  maxBodySize: TRPC_BODY_LIMIT_BYTES,
  createContext: ({ req }) =>
    createContext({ db, headers: new Headers(req.headers as Record<string, string>), producer: () => producer, sessionUserId: async () => null, ingestPool: () => ingestPool }),
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
  await ingestPool.end();
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

    const other = await seedDashboard(db, "remote-cli-elsewhere");
    const foreign = await runCli(["report", other.run.id], laptop);
    expect(foreign.code).toBe(1);
    expect(foreign.stderr).toContain(`${url}: run not found`);
  }, 180_000);

  it("imports over HTTP: real trajectories land labelled as a local import labels them, a bad line is quarantined at its line, nothing is added twice", async () => {
    const importerHome = mkdtempSync(join(tmpdir(), "evo-remote-import-"));
    const env = { ...laptop, XDG_CONFIG_HOME: importerHome };
    expect((await runCli(["login", url, "--key", await keyOf(seed.users.approver.id)], env)).code).toBe(0);

    const first = await runCli(["import", "swe-agent", "tests/fixtures/real/swe-agent", "--json"], env);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain(`in ${url}`);
    const remote = JSON.parse(first.stdout) as { branchId: string; jobId: string; rollouts: { added: number } };
    expect(remote.rollouts.added).toBe(4);
    expect(await db.rollout.count({ where: { branchId: remote.branchId } })).toBe(4);

    // The same files imported beside the database: a run of its own (another machine's import), and the very same labels and evidence.
    const local = await runCli(["import", "swe-agent", "tests/fixtures/real/swe-agent", "--json"], { DATABASE_URL: database.url, XDG_CONFIG_HOME: mkdtempSync(join(tmpdir(), "evo-local-")) });
    expect(local.code, local.stderr).toBe(0);
    const localBranch = (JSON.parse(local.stdout) as { branchId: string }).branchId;
    expect(localBranch).not.toBe(remote.branchId);
    const labelsOf = async (branchId: string) =>
      (await db.rolloutLabel.findMany({ where: { branchId }, include: { rollout: { select: { uid: true } } } })).map((l) => `${l.rollout.uid} ${l.label} ${JSON.stringify(l.evidence)}`).sort();
    const remoteLabels = await labelsOf(remote.branchId);
    expect(remoteLabels.length).toBeGreaterThan(0);
    expect(remoteLabels).toEqual(await labelsOf(localBranch));

    // Again: the server's cursors say everything was read.
    const again = await runCli(["import", "swe-agent", "tests/fixtures/real/swe-agent", "--json"], env);
    expect((JSON.parse(again.stdout) as { branchId: string; rollouts: { added: number } }).rollouts.added).toBe(0);
    // A server that lost its cursors is sent everything again, and keeps each row once.
    await db.ingestCursor.deleteMany({ where: { jobId: remote.jobId } });
    const resent = JSON.parse((await runCli(["import", "swe-agent", "tests/fixtures/real/swe-agent", "--json"], env)).stdout) as { branchId: string; rollouts: { added: number; alreadyPresent: number } };
    expect(resent.branchId).toBe(remote.branchId);
    expect(resent.rollouts).toMatchObject({ added: 0, alreadyPresent: 4 });
    expect(await db.rollout.count({ where: { branchId: remote.branchId } })).toBe(4);

    // Results joined on a later import reach the rows stored on the server.
    const results = join(importerHome, "results.json");
    writeFileSync(results, JSON.stringify({ resolved_ids: ["marshmallow-code__marshmallow-1867"], unresolved_ids: ["pydicom__pydicom-1458"] }));
    const joined = await runCli(["import", "swe-agent", "tests/fixtures/real/swe-agent", "--report", results], env);
    expect(joined.code, joined.stderr).toBe(0);
    // Only the two files whose rows took a result are read again.
    expect(joined.stdout).toContain("0 rollouts added, 2 already present (2 of their stored results changed), 0 quarantined; 1 of 2 with a result resolved");
    const rewards = await db.rollout.findMany({ where: { branchId: remote.branchId, taskId: { in: ["marshmallow-code__marshmallow-1867", "pydicom__pydicom-1458"] } }, orderBy: { taskId: "asc" } });
    expect(rewards.map((r) => [r.taskId, r.reward])).toEqual([["marshmallow-code__marshmallow-1867", 1], ["pydicom__pydicom-1458", 0]]);
    // The other two trajectories still have no result: the mean is of the two that do.
    expect((await db.metricPoint.findUniqueOrThrow({ where: { branchId_name_step: { branchId: remote.branchId, name: "train/reward_mean", step: 0 } } })).value).toBe(0.5);

    // A stale upload (its cursor moved since) is refused with where the server stands.
    const api = createCallerFactory(appRouter)(createContext({ db, headers: new Headers(), producer: () => producer, sessionUserId: async () => seed.users.approver.id, ingestPool: () => ingestPool }));
    const [source] = (await db.ingestCursor.findMany({ where: { jobId: remote.jobId } })).map((c) => c.file);
    const stale = await api.import.append({ jobId: remote.jobId, source: source!, from: { byteOffset: 1, lineNumber: 1 }, next: { byteOffset: 2, lineNumber: 2, headHash: null }, lines: [], unreadable: [] });
    expect(stale.outcome).toBe("cursor_moved");

    // ingest over HTTP: the bad line is kept out at its file and line, the good one is labelled.
    const rollout = (uid: string) => ({
      uid, split: "train", step: 1, taskId: uid, groupId: `${uid}@1`, sample: 0, prompt: "fix the bug", reward: 1, responseTokens: 50, turns: 2,
      trajectory: [{ role: "assistant", content: "I will edit the test", toolCalls: [{ name: "edit_file", arguments: { path: "tests/test_core.py" } }] }],
      extra: { patch: "--- a/tests/test_core.py\n+++ b/tests/test_core.py\n@@ -1 +1 @@\n-assert f() == 2\n+assert True\n" },
    });
    const file = join(importerHome, "outside.jsonl");
    writeFileSync(file, `${JSON.stringify(rollout("remote-1"))}\nnot json\n`);
    const ingested = await runCli(["ingest", file, "--branch", remote.branchId], env);
    expect(ingested.code, ingested.stderr).toBe(0);
    expect(ingested.stdout).toContain("1 rollouts added, 0 already present, 1 lines quarantined");
    expect(ingested.stdout).toMatch(/outside\.jsonl:2: .*JSON/i);
    const tampering = await db.rolloutLabel.findFirst({ where: { branchId: remote.branchId, label: "test_tampering", rollout: { uid: "remote-1" } } });
    expect(tampering).not.toBeNull();

    // A viewer may read the run but not import into it.
    const viewerHome = mkdtempSync(join(tmpdir(), "evo-remote-import-viewer-"));
    const viewerEnv = { ...laptop, XDG_CONFIG_HOME: viewerHome };
    expect((await runCli(["login", url, "--key", await keyOf(seed.users.viewer.id)], viewerEnv)).code).toBe(0);
    const refused = await runCli(["import", "swe-agent", "tests/fixtures/real/swe-agent", "--run", seed.run.id], viewerEnv);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(url);
    expect(refused.stderr).toMatch(/approver/);
  }, 300_000);

  it("a line larger than one request can carry is quarantined with its size, and the lines around it are stored", async () => {
    const importerHome = mkdtempSync(join(tmpdir(), "evo-remote-large-"));
    const env = { ...laptop, XDG_CONFIG_HOME: importerHome };
    expect((await runCli(["login", url, "--key", await keyOf(seed.users.approver.id)], env)).code).toBe(0);
    const rollout = (uid: string, prompt: string) => ({ uid, split: "train", step: 1, taskId: uid, groupId: `${uid}@1`, sample: 0, prompt, response: "the sum", reward: 1, responseTokens: 5, turns: 1 });
    const file = join(importerHome, "large.jsonl");
    writeFileSync(file, [rollout("small-1", "add 2 and 2"), rollout("huge", "x".repeat(40 * 1024 * 1024)), rollout("small-2", "add 3 and 4")].map((r) => JSON.stringify(r)).join("\n") + "\n");
    const ingested = await runCli(["ingest", file, "--branch", seed.branches.v2.id], env);
    expect(ingested.code, ingested.stderr).toBe(0);
    expect(ingested.stdout).toContain("2 rollouts added, 0 already present, 1 lines quarantined");
    expect(ingested.stdout).toMatch(/large\.jsonl:2: the line is 40\.0 MiB, and http:\/\/127\.0\.0\.1:\d+ takes at most 31\.9 MiB in one request/);
    expect(await db.rollout.count({ where: { branchId: seed.branches.v2.id, uid: { in: ["small-1", "small-2", "huge"] } } })).toBe(2);

    // An import whose only line is too large stores nothing, so it leaves no run on the server.
    const alone = join(importerHome, "alone.jsonl");
    writeFileSync(alone, `${JSON.stringify({ instance_id: "huge__huge-1", messages: [{ role: "user", content: "x".repeat(40 * 1024 * 1024) }, { role: "assistant", content: "Done." }] })}\n`);
    const runs = await db.run.count();
    const empty = await runCli(["import", "openai-chat", alone], env);
    expect(empty.code).toBe(1);
    expect(empty.stderr).toMatch(/alone\.jsonl:1: the line is 40\.0 MiB/);
    expect(empty.stderr).toContain(`so no run or branch was created in ${url}`);
    expect(await db.run.count()).toBe(runs);
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

  it("after login, orgs work on the server (names escaped in the terminal); users and gc say in one sentence that they run beside the database", async () => {
    const adminHome = mkdtempSync(join(tmpdir(), "evo-remote-orgs-"));
    const env = { ...laptop, XDG_CONFIG_HOME: adminHome };
    // The seed's organization admin is this installation's admin here; a name stored before the API
    // refused control characters is still printed as escapes.
    await db.user.update({ where: { id: seed.users.admin.id }, data: { role: "admin" } });
    await db.organization.create({ data: { name: "old \u001b[2Jname", slug: "old-escape" } });
    expect((await runCli(["login", url, "--key", await keyOf(seed.users.admin.id)], env)).code).toBe(0);

    const created = await runCli(["orgs", "create", "Lab B", "--admin", "lead@lab-b.example"], env);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toContain("organization Lab B (--org lab-b) created.");
    expect(created.stdout).toContain(`${url}/invite/`);
    const listed = await runCli(["orgs", "list"], env);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/lab-b\s+0\s+members\s+Lab B/);
    expect(listed.stdout).toContain("old \\x1b[2Jname");
    expect(listed.stdout).not.toContain("\u001b");

    for (const command of [["users", "list"], ["gc"]]) {
      const refused = await runCli(command, env);
      expect(refused.code, command.join(" ")).toBe(1);
      expect(refused.stderr.trim().split("\n"), command.join(" ")).toHaveLength(1);
      expect(refused.stderr).toContain(`\`evotrainer ${command[0]}\` runs only beside the control plane's database, and this CLI is logged in to ${url}`);
      expect(refused.stderr).not.toMatch(/prisma|does not exist|ECONNREFUSED/i);
    }
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

  it("docs/install-cli.md's commands, run as written on a fresh checkout, pack a CLI that installs with npm i -g and reports from any directory", async () => {
    const [pack, install] = docCommands("docs/install-cli.md", "## Without a clone: the packed CLI");
    expect(pack).toEqual(["npm ci", "node scripts/pack-cli.mjs dist-cli"]);
    // A fresh checkout: the tracked and new files of this tree, none of its installed or built outputs.
    const scratch = mkdtempSync(join(tmpdir(), "evo-install-"));
    const checkout = join(scratch, "checkout");
    const files = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard", "-z"], { encoding: "utf8" }).split("\0").filter((file) => file && existsSync(file));
    for (const file of files) {
      mkdirSync(dirname(join(checkout, file)), { recursive: true });
      cpSync(file, join(checkout, file));
    }
    // npm's cache already holds every package (this machine installed them): no registry is asked.
    const offline = { ...process.env, npm_config_offline: "true", npm_config_audit: "false", npm_config_fund: "false" };
    for (const command of pack!) execFileSync("sh", ["-c", command], { cwd: checkout, env: offline, stdio: "ignore" });
    const [tarball] = readdirSync(join(checkout, "dist-cli"));
    expect(tarball).toMatch(/^evotrainer-.*\.tgz$/);

    // The laptop: the tarball in a folder of its own, npm's global prefix a fresh folder (npm's own setting).
    const laptopDir = join(scratch, "laptop");
    mkdirSync(laptopDir);
    cpSync(join(checkout, "dist-cli", tarball!), join(laptopDir, tarball!));
    const prefix = join(scratch, "prefix");
    const laptopShell = { ...laptop, npm_config_prefix: prefix, npm_config_offline: "true", XDG_CONFIG_HOME: join(scratch, "config"), PATH: `${join(prefix, "bin")}:${process.env.PATH}` };
    const key = await keyOf(seed.users.viewer.id);
    const results = [];
    for (const command of install!) {
      const written = command.replace("https://evotrainer.example.com", url).replace("evo_…", key);
      results.push(await runProgram("sh", ["-c", written], laptopShell, laptopDir));
    }
    for (const [i, result] of results.entries()) expect(result.code, `${install![i]}: ${result.stderr}`).toBe(0);
    expect(install).toEqual(["npm i -g ./evotrainer-0.1.0.tgz", "evotrainer --version", "evotrainer login https://evotrainer.example.com --key evo_…", "evotrainer status"]);
    // Its bundle carries every dependency: nothing was installed beside it.
    expect(existsSync(join(prefix, "lib/node_modules/evotrainer/node_modules"))).toBe(false);
    expect(results[1]!.stdout.trim()).toBe((JSON.parse(readFileSync("apps/cli/package.json", "utf8")) as { version: string }).version);
    expect(results[2]!.stdout).toContain(`logged in to ${url} as ${seed.users.viewer.email}`);
    // The packed CLI reports what the clone's CLI reports for the same key: the latest run it may see.
    const clone = await runCli(["status"], { ...laptop, EVO_SERVER: url, EVO_API_KEY: key });
    expect(clone.code, clone.stderr).toBe(0);
    const runIdOf = (line: string) => line.split(" ")[0];
    expect(runIdOf(results[3]!.stdout)).toMatch(/\w{8,}/);
    expect(runIdOf(results[3]!.stdout)).toBe(runIdOf(clone.stdout));
  }, 600_000);
});
