import { expect, test } from "@playwright/test";
import { createDatabase } from "@evotrainer/db";
import { seedDashboard } from "../support/dashboard-seed.ts";
import { signIn } from "./sign-in.ts";

// Live gym runs come from the worker; until then the run is seeded as the loop leaves it mid-way.
let seed: Awaited<ReturnType<typeof seedDashboard>>;
const shots = "test-results/screenshots";

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  const db = createDatabase(process.env.DATABASE_URL!);
  try {
    seed = await seedDashboard(db, "supervised");
  } finally {
    await db.$disconnect();
  }
});

test("pages need a session: a visitor is sent to sign in", async ({ page }) => {
  await page.goto(`/runs/${seed.run.id}`);
  await expect(page).toHaveURL(/\/sign-in\?next=/);
  await page.getByLabel("Email").fill(seed.users.approver.email);
  await page.getByLabel("Password").fill("wrong password");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.locator("form [role=alert]")).toContainText(/invalid/i);
});

test("an approver reads a branch's backtest and verdict, vetoes one branch and approves another", async ({ page }) => {
  await signIn(page, seed.users.approver.email);
  await page.getByRole("link", { name: seed.run.name }).click();
  await expect(page.getByRole("heading", { name: seed.run.name })).toBeVisible();
  for (const v of [0, 1, 2, 3, 4]) await expect(page.getByTestId(`tree-node-v${v}`)).toBeVisible();
  await expect(page.getByTestId("event-timeline")).toContainText("verdict");
  await expect(page.locator(".recharts-line").first()).toBeVisible();
  await page.screenshot({ path: `${shots}/run-page.png`, fullPage: true });

  await page.getByTestId("tree-node-v2").getByRole("link").click();
  await expect(page.getByRole("heading", { name: "Branch v2" })).toBeVisible();
  await expect(page.getByTestId("backtest")).toContainText("+0.061");
  await expect(page.getByTestId("backtest-report")).toContainText("deadGroupsRescued");
  await expect(page.getByTestId("verdict")).toContainText("failed");
  await expect(page.getByTestId("verdict")).toContainText("main_score_vs_parent");
  await expect(page.getByTestId("verdict")).toContainText("bootstrap CI");
  await expect(page.getByTestId("recipe-diff")).toContainText("/algo/temperature");
  await page.screenshot({ path: `${shots}/branch-page.png`, fullPage: true });

  await page.getByRole("button", { name: "Veto…" }).click();
  await expect(page.getByRole("button", { name: "Confirm veto" })).toBeDisabled();
  await page.getByLabel(/Reason for the veto/).fill("promotion score regressed against the parent");
  await page.getByRole("button", { name: "Confirm veto" }).click();
  await expect(page.locator(".run-header .status")).toHaveText("vetoed");
  await expect(page.getByTestId("decisions")).toContainText("veto at completion");
  await expect(page.getByTestId("decisions")).toContainText("promotion score regressed against the parent");
  await expect(page.getByRole("button", { name: "Approve" })).toHaveCount(0);

  await page.goto(`/runs/${seed.run.id}/branches/${seed.branches.v1.id}`);
  await page.getByRole("button", { name: "Approve" }).click();
  await expect(page.locator(".run-header .status")).toHaveText("promoted");
  await expect(page.locator(".run-header")).toContainText("best so far");
});

test("rollouts filter by a label; the detail highlights the label's evidence", async ({ page }) => {
  await signIn(page, seed.users.viewer.email);
  await page.goto(`/runs/${seed.run.id}/branches/${seed.branches.v1.id}/rollouts`);
  await expect(page.getByTestId("rollout-row").first()).toBeVisible();
  await page.getByLabel("Label").selectOption("repetition_loop");
  await page.getByRole("button", { name: "Apply" }).click();
  await expect(page).toHaveURL(/label=repetition_loop/);
  const rows = page.getByTestId("rollout-row");
  await expect(rows.first()).toContainText("repetition_loop");
  for (const row of await rows.all()) await expect(row).toContainText("repetition_loop");
  await rows.first().click();
  const detail = page.getByTestId("rollout-detail");
  await expect(detail.getByTestId("rollout-labels")).toContainText("math.repetition_loop v1");
  await expect(detail.getByTestId("evidence-highlight").first()).toHaveText("so the answer is so the answer is so the answer is");
  await page.screenshot({ path: `${shots}/rollout-detail.png`, fullPage: true });

  // A viewer reads labels but does not review them.
  await expect(detail.getByRole("button", { name: "Confirm" })).toHaveCount(0);
  const first = new URL(page.url()).searchParams.get("r");
  await page.keyboard.press("j");
  await expect(page).not.toHaveURL(new RegExp(`r=${first}(&|$)`));
  await page.keyboard.press("?");
  await expect(page.getByTestId("shortcuts")).toBeVisible();

  await detail.getByLabel("Compare with branch").selectOption({ label: "v2" });
  await expect(detail.getByTestId("compare-side")).toContainText("v2 says");
});

test("a viewer sees no decision buttons", async ({ page }) => {
  await signIn(page, seed.users.viewer.email);
  await page.goto(`/runs/${seed.run.id}/branches/${seed.branches.v4.id}`);
  await expect(page.getByRole("heading", { name: "Branch v4" })).toBeVisible();
  await expect(page.getByRole("button", { name: "Approve" })).toHaveCount(0);
  await page.goto("/approvals");
  await expect(page.getByRole("heading", { name: "Approvals" })).toBeVisible();
});

test("a share link opens the run read-only without an account, and a revoked link answers 404", async ({ page, browser }) => {
  await signIn(page, seed.users.approver.email);
  await page.goto(`/runs/${seed.run.id}`);
  await page.getByRole("button", { name: "Create share link" }).click();
  const url = await page.getByTestId("share-url").inputValue();
  expect(url).toMatch(/\/share\/evs_[A-Za-z0-9_-]{43}$/);

  const stranger = await browser.newContext();
  try {
    const shared = await stranger.newPage();
    const response = await shared.goto(url);
    expect(response?.status()).toBe(200);
    expect(response?.headers()["referrer-policy"]).toBe("no-referrer");
    await expect(shared.getByTestId("tree-node-v1")).toBeVisible();
    await expect(shared.getByText("read-only").first()).toBeVisible();
    await expect(shared.getByTestId("share-links")).toHaveCount(0);
    await shared.getByTestId("tree-node-v4").getByRole("link").click();
    await expect(shared.getByRole("heading", { name: "Branch v4" })).toBeVisible();
    await expect(shared.getByRole("button", { name: /Approve|Veto|Revise/ })).toHaveCount(0);
    await shared.getByRole("link", { name: "Rollouts →" }).click();
    await expect(shared.getByTestId("rollouts-table")).toBeVisible();

    await page.getByTestId("share-link-row").getByRole("button", { name: "Revoke" }).click();
    await expect(page.getByTestId("share-link-row")).toContainText("revoked");
    expect((await shared.goto(url))?.status()).toBe(404);
  } finally {
    await stranger.close();
  }
});
