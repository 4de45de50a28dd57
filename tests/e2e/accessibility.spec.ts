import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Page } from "@playwright/test";
import { createLocalUser } from "@evotrainer/api";
import { createDatabase } from "@evotrainer/db";
import { runCli } from "../support/cli.ts";
import { SEED_PASSWORD, seedDashboard } from "../support/dashboard-seed.ts";
import { signIn } from "./sign-in.ts";

// axe-core on the main pages: nothing serious or critical for a keyboard or screen-reader user.
const shots = "test-results/screenshots";
const db = createDatabase(process.env.DATABASE_URL!);
let seed: Awaited<ReturnType<typeof seedDashboard>>;

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  seed = await seedDashboard(db, "accessible");
});

test.afterAll(() => db.$disconnect());

async function expectNoSeriousViolations(page: Page, name: string) {
  const results = await new AxeBuilder({ page }).analyze();
  const serious = results.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.length} node(s), e.g. ${v.nodes[0]?.target.join(" ")}`);
  await page.screenshot({ path: `${shots}/a11y-${name}.png`, fullPage: true });
  expect(serious, `${name} page`).toEqual([]);
}

test("the sign-in page", async ({ page }) => {
  await page.goto("/sign-in");
  await expect(page.getByRole("button", { name: "Sign in" })).toBeVisible();
  await expectNoSeriousViolations(page, "sign-in");
});

// One test per page: axe reads the whole DOM, which takes a while on a loaded machine.
const PAGES: [string, (s: typeof seed) => string, (page: Page) => Promise<void>][] = [
  ["run", (s) => `/runs/${s.run.id}`, (page) => expect(page.getByTestId("tree-node-v4")).toBeVisible()],
  ["branch", (s) => `/runs/${s.run.id}/branches/${s.branches.v1.id}`, (page) => expect(page.getByTestId("verdict")).toContainText("main_score_vs_parent")],
  ["rollouts", (s) => `/runs/${s.run.id}/branches/${s.branches.v1.id}/rollouts`, (page) => expect(page.getByTestId("rollout-row").first()).toBeVisible()],
  ["compare", (s) => `/runs/${s.run.id}/compare?b=${s.branches.base.id},${s.branches.v1.id},${s.branches.v2.id}`, (page) => expect(page.getByTestId("compare-summary")).toBeVisible()],
  ["approvals", () => "/approvals", (page) => expect(page.getByRole("heading", { name: "Approvals" })).toBeVisible()],
  ["harness", () => "/harness", (page) => expect(page.getByTestId("harness-version").first()).toBeVisible()],
  ["members", () => "/settings/members", (page) => expect(page.getByRole("cell", { name: seed.users.viewer.email })).toBeVisible()],
];

for (const [name, path, ready] of PAGES) {
  test(`the ${name} page`, async ({ page }) => {
    test.setTimeout(180_000);
    await signIn(page, seed.users.admin.email);
    await page.goto(path(seed));
    await ready(page);
    await expectNoSeriousViolations(page, name);
  });
}

// An imported SWE branch: real mini-swe-agent trajectories, whose long tool outputs scroll inside their blocks.
test.describe("an imported SWE branch", () => {
  let imported: { runId: string; branchId: string; email: string; flagged: string };

  test.beforeAll(async () => {
    const lines = gunzipSync(readFileSync("tests/fixtures/real/mini-swe-agent-gemini-3-pro-dev150.jsonl.gz")).toString("utf8").trim().split("\n");
    const file = join(mkdtempSync(join(tmpdir(), "evo-e2e-a11y-")), `swe-${Date.now()}.jsonl`);
    writeFileSync(file, `${lines.slice(0, 20).join("\n")}\n`);
    const cli = await runCli(["import", "mini-swe-agent", file, "--json"], { DATABASE_URL: process.env.DATABASE_URL! });
    expect(cli.code, cli.stderr).toBe(0);
    const { runId, branchId } = JSON.parse(cli.stdout) as { runId: string; branchId: string };
    const label = await db.rolloutLabel.findFirstOrThrow({ where: { branchId }, select: { rolloutId: true } });
    const run = await db.run.findUniqueOrThrow({ where: { id: runId } });
    const email = `a11y-swe-${Date.now()}@example.test`;
    await createLocalUser(db, { email, name: "SWE approver", password: SEED_PASSWORD, organizationId: run.organizationId, role: "approver" });
    imported = { runId, branchId, email, flagged: String(label.rolloutId) };
  });

  test("its review queue", async ({ page }) => {
    test.setTimeout(180_000);
    await signIn(page, imported.email);
    await page.goto(`/runs/${imported.runId}/review`);
    await expect(page.getByTestId("review-question").locator(".trajectory")).toBeVisible();
    await expectNoSeriousViolations(page, "swe-review-queue");
  });

  test("its rollouts table, a trajectory open", async ({ page }) => {
    test.setTimeout(180_000);
    await signIn(page, imported.email);
    await page.goto(`/runs/${imported.runId}/branches/${imported.branchId}/rollouts?r=${imported.flagged}`);
    await expect(page.getByTestId("rollout-row").first()).toBeVisible();
    await expect(page.getByTestId("rollout-detail").locator(".trajectory")).toBeVisible();
    await expectNoSeriousViolations(page, "swe-rollouts");
  });

  test("a tool output too long for its block is reached and scrolled from the keyboard", async ({ page }) => {
    await signIn(page, imported.email);
    await page.goto(`/runs/${imported.runId}/branches/${imported.branchId}/rollouts?r=${imported.flagged}`);
    const detail = page.getByTestId("rollout-detail");
    await expect(detail.locator(".trajectory")).toBeVisible();
    const block = detail.locator(".trajectory").getByRole("region").first();
    await expect(block).toHaveAccessibleName(/^Turn \d+/);
    await block.focus();
    await expect(block).toBeFocused();
    await page.keyboard.press("PageDown");
    await expect.poll(() => block.evaluate((el) => el.scrollTop)).toBeGreaterThan(0);
  });
});

test("the rollout table is a table, and its scroll region is reached from the keyboard", async ({ page }) => {
  await signIn(page, seed.users.viewer.email);
  await page.goto(`/runs/${seed.run.id}/branches/${seed.branches.v1.id}/rollouts`);
  const table = page.getByRole("table", { name: "Rollouts" });
  await expect(table.getByRole("columnheader", { name: "reward" })).toBeVisible();
  await expect(table.getByRole("row").nth(1).getByRole("cell").first()).toBeVisible();
  const region = page.getByRole("rowgroup", { name: /Rollout rows/ });
  await region.focus();
  await expect(region).toBeFocused();
  await page.keyboard.press("PageDown");
  await expect.poll(() => region.evaluate((el) => el.scrollTop)).toBeGreaterThan(0);
});

test("on the run page a skip link, then at most five tab stops, reach the first branch; tree edges take none", async ({ page }) => {
  await signIn(page, seed.users.approver.email);
  await page.goto(`/runs/${seed.run.id}`);
  await expect(page.getByTestId("tree-node-v0")).toBeVisible();
  await page.keyboard.press("Tab");
  await expect(page.getByRole("link", { name: "Skip to content" })).toBeFocused();
  await page.keyboard.press("Enter");
  let stops = 0;
  const inFirstBranch = async () => (await page.getByTestId("tree-node-v0").locator(":focus").count()) > 0;
  while (stops < 5 && !(await inFirstBranch())) {
    await page.keyboard.press("Tab");
    stops++;
  }
  expect(await inFirstBranch(), `the first branch after ${stops} tab stops`).toBe(true);
  await expect(page.locator(".react-flow__edge[tabindex]")).toHaveCount(0);
  await page.screenshot({ path: `${shots}/a11y-run-first-branch-focused.png` });
});
