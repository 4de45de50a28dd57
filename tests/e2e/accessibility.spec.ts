import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Page } from "@playwright/test";
import { createDatabase } from "@evotrainer/db";
import { seedDashboard } from "../support/dashboard-seed.ts";
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
