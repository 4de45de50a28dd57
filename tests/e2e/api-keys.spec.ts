import { spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { createDatabase } from "@evotrainer/db";
import { CLI, runCli } from "../support/cli.ts";
import { seedDashboard } from "../support/dashboard-seed.ts";
import { signIn } from "./sign-in.ts";

// A researcher's laptop: the CLI logs in to the real dashboard with a key made in its UI, and has
// no database or Redis of its own to fall back on.
const shots = "test-results/screenshots";
const db = createDatabase(process.env.DATABASE_URL!);
let seed: Awaited<ReturnType<typeof seedDashboard>>;

test.beforeAll(async () => {
  seed = await seedDashboard(db, "api-keys");
});
test.afterAll(() => db.$disconnect());

test("a key made in the dashboard logs the CLI in; report, status, decide and import go over HTTP from anywhere; a revoked key is refused with the fix", async ({ page, baseURL }) => {
  // A bound on a hang, not a speed target: the import labels and stores 150 real trajectories.
  test.setTimeout(240_000);
  await signIn(page, seed.users.approver.email);
  await page.getByRole("link", { name: "API keys" }).click();
  await page.getByLabel("Key name").fill("laptop");
  await page.getByRole("button", { name: "Create key" }).click();
  const key = await page.getByLabel("New API key").inputValue();
  expect(key).toMatch(/^evo_/);
  await expect(page.getByTestId("login-command")).toHaveText(`evotrainer login ${baseURL} --key ${key}`);
  await page.screenshot({ path: `${shots}/api-keys.png`, fullPage: true });

  const laptop = { XDG_CONFIG_HOME: mkdtempSync(join(tmpdir(), "evo-laptop-")), DATABASE_URL: "postgresql://nobody@127.0.0.1:1/none", REDIS_URL: "redis://127.0.0.1:1", EVO_API_KEY: "" };
  const login = await runCli(["login", baseURL!, "--key", key], laptop);
  expect(login.code, login.stderr).toBe(0);
  expect(login.stdout).toContain(seed.users.approver.email);
  const report = await runCli(["report", seed.run.id, "--json"], laptop);
  expect(report.code, report.stderr).toBe(0);
  expect((JSON.parse(report.stdout) as { name: string }).name).toBe(seed.run.name);

  // From another working directory, with no DATABASE_URL or REDIS_URL at all: a decision over HTTP.
  const elsewhere = mkdtempSync(join(tmpdir(), "evo-laptop-cwd-"));
  const { DATABASE_URL: _db, REDIS_URL: _redis, ...bare } = process.env;
  const decided = spawnSync(process.execPath, [CLI, "decide", seed.branches.v1.id, "approve"], {
    cwd: elsewhere,
    env: { ...bare, XDG_CONFIG_HOME: laptop.XDG_CONFIG_HOME, EVO_API_KEY: "" },
    encoding: "utf8",
  });
  expect(decided.status, decided.stderr).toBe(0);
  expect(decided.stdout).toContain(`approve recorded for branch ${seed.branches.v1.id} on ${baseURL}`);
  const approval = await db.decision.findFirstOrThrow({ where: { branchId: seed.branches.v1.id, kind: "approve" } });
  expect(approval.userId).toBe(seed.users.approver.id);

  // 150 real SWE trajectories (about 17 MB of rollout lines) through the dashboard's own route, in several batches.
  const imported = await runCli(["import", "mini-swe-agent", "tests/fixtures/real/mini-swe-agent-gemini-3-pro-dev150.jsonl.gz", "--run", seed.run.id, "--json"], laptop);
  expect(imported.code, imported.stderr).toBe(0);
  const { branchId, rollouts } = JSON.parse(imported.stdout) as { branchId: string; rollouts: { added: number } };
  expect(rollouts.added).toBe(150);
  expect(await db.rollout.count({ where: { branchId } })).toBe(150);
  expect((await db.event.findFirstOrThrow({ where: { branchId, type: "branch_created" } })).actor).toBe(`user:${seed.users.approver.id}`);

  await page.reload();
  await page.getByTestId("api-key-row").filter({ hasText: "laptop" }).getByRole("button", { name: "Revoke" }).click();
  await expect(page.getByTestId("api-key-row").filter({ hasText: "laptop" })).toContainText("revoked");
  const refused = await runCli(["status", seed.run.id], laptop);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain(`${baseURL} refused the API key`);
});
