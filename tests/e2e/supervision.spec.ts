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
  // A promotion score is one number a branch gets when it is judged: a bar per scored branch.
  await expect(page.getByTestId("promotion-scores").locator(".recharts-bar-rectangle")).toHaveCount(3);
  await page.screenshot({ path: `${shots}/run-page.png`, fullPage: true });

  await page.getByTestId("tree-node-v2").getByRole("link").click();
  await expect(page.getByRole("heading", { name: "Branch v2" })).toBeVisible();
  await expect(page.getByTestId("backtest")).toContainText("truncation_rate should go down by about 0.061");
  await expect(page.getByTestId("backtest-report")).toContainText("dead groups");
  await expect(page.getByTestId("backtest-report")).toContainText("7 rescued");
  await expect(page.getByTestId("realised-effect")).toContainText("-0.190 after training: the predicted direction held");
  await expect(page.getByTestId("advantage-chart").locator(".recharts-bar-rectangle").first()).toBeVisible();
  await expect(page.getByTestId("verdict").getByTestId("interval-chart")).toHaveCount(1);
  await expect(page.getByTestId("verdict")).toContainText("failed");
  await expect(page.getByTestId("verdict")).toContainText("main_score_vs_parent");
  await expect(page.getByTestId("verdict")).toContainText("bootstrap CI");
  await expect(page.getByTestId("recipe-diff")).toContainText("/algo/temperature");
  // Numbers as numbers and evidence as words: nothing on the page is raw JSON.
  expect(await page.locator("main").textContent()).not.toContain('{"');
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
  await page.getByRole("button", { name: "Approve…", exact: true }).click();
  await page.getByRole("button", { name: "Confirm approve" }).click();
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
  await expect(detail.getByTestId("rollout-labels")).toContainText(/math\.repetition_loop v\d+/);
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

test("a text search finds the same rollouts before and after the worker has indexed them", async ({ page }) => {
  await signIn(page, seed.users.viewer.email);
  await page.goto(`/runs/${seed.run.id}/branches/${seed.branches.v1.id}/rollouts`);
  await page.getByLabel("Search").fill("12 BY 1");
  await page.getByRole("button", { name: "Apply" }).click();
  await expect(page).toHaveURL(/q=12\+BY\+1/);
  const rows = page.getByTestId("rollout-row");
  // "We multiply 12 by 1…: …" for 1 and 11 to 19 but the two that loop (10, 17), case aside.
  await expect(rows).toHaveCount(9);
  for (const row of await rows.all()) await expect(row).toContainText("task-1");
  // The seeded rollouts were written past ingest, so the reconcile sweep queues their indexing: the
  // notice says so until the worker has caught up, and the search answers the same afterwards.
  await expect(page.getByTestId("search-lag")).toHaveCount(0, { timeout: 60_000 });
  await page.reload();
  await expect(rows).toHaveCount(9);
});

test("a label in the URL shows in the filter, and applying another filter keeps it", async ({ page }) => {
  await signIn(page, seed.users.viewer.email);
  await page.goto(`/runs/${seed.run.id}/branches/${seed.branches.v1.id}/rollouts?label=repetition_loop`);
  await expect(page.getByLabel("Label")).toHaveValue("repetition_loop");
  await page.getByLabel("Minimum reward").fill("0");
  await page.getByRole("button", { name: "Apply" }).click();
  await expect(page).toHaveURL(/rewardMin=0/);
  expect(new URL(page.url()).searchParams.get("label")).toBe("repetition_loop");
  await expect(page.getByLabel("Label")).toHaveValue("repetition_loop");
});

test("a run or branch that does not exist answers 404 at once, saying so", async ({ page }) => {
  await signIn(page, seed.users.viewer.email);
  expect((await page.goto("/runs/no-such-run"))?.status()).toBe(404);
  await expect(page.getByTestId("not-found")).toContainText("does not exist");
  expect((await page.goto(`/runs/${seed.run.id}/branches/no-such-branch`))?.status()).toBe(404);
  expect((await page.goto(`/runs/no-such-run/branches/${seed.branches.v1.id}`))?.status()).toBe(404);
});

test("branches picked on the run page open side by side: recipe, curves, label rates and the same tasks", async ({ page }) => {
  await signIn(page, seed.users.viewer.email);
  await page.goto(`/runs/${seed.run.id}`);
  // Pick exactly v1 and v2, whatever the run page picked by default (earlier tests decided branches).
  await expect(page.locator(".chip")).toHaveCount(5);
  for (const version of [0, 1, 2, 3, 4]) {
    const chip = page.locator(".chip").filter({ hasText: new RegExp(`^v${version}$`) });
    const on = ((await chip.getAttribute("class")) ?? "").split(" ").includes("on");
    if (on !== (version === 1 || version === 2)) await chip.click();
  }
  await expect(page.getByTestId("compare-selected")).toHaveText("Compare v1, v2 →");
  await page.getByTestId("compare-selected").click();
  await expect(page.getByRole("heading", { name: "Compare branches" })).toBeVisible();
  await expect(page.getByTestId("compare-summary")).toContainText("maxResponseTokens");
  await expect(page.getByTestId("compare-recipes").getByRole("row", { name: /\/algo\/temperature/ })).toContainText("0.8");
  await expect(page.getByTestId("compare-labels").getByRole("row", { name: /repetition_loop/ })).toContainText("%");
  await expect(page.getByTestId("compare-task")).toHaveCount(6);
  await expect(page.getByTestId("compare-task").first()).toContainText("v2 says");
  await expect(page.locator(".recharts-line").first()).toBeVisible();
  await page.screenshot({ path: `${shots}/compare-page.png`, fullPage: true });
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
