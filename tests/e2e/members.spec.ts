import { expect, test, type Browser, type Page } from "@playwright/test";
import { createDatabase } from "@evotrainer/db";
import { seedDashboard } from "../support/dashboard-seed.ts";
import { signIn } from "./sign-in.ts";

// The seeded organization: an admin, and two branches awaiting a decision (v2's verdict failed).
let seed: Awaited<ReturnType<typeof seedDashboard>>;
const shots = "test-results/screenshots";
const links: { approver?: string; viewer?: string } = {};
const tag = Date.now().toString(36);
const people = {
  approver: { email: `invited-approver-${tag}@example.test`, name: "Ada Approver", password: "approver password 1" },
  viewer: { email: `invited-viewer-${tag}@example.test`, name: "Vic Viewer", password: "viewer password 1" },
};

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  const db = createDatabase(process.env.DATABASE_URL!);
  try {
    seed = await seedDashboard(db, "members");
  } finally {
    await db.$disconnect();
  }
});

async function invite(page: Page, who: keyof typeof people): Promise<string> {
  await page.getByLabel("Email to invite").fill(people[who].email);
  await page.getByLabel("Role", { exact: true }).selectOption(who);
  await page.getByRole("button", { name: "Create invitation link" }).click();
  const url = page.getByTestId("once-link-url");
  await expect(url).toContainText("/invite/evi_");
  const link = (await url.textContent())!;
  await expect(page.getByTestId("once-link")).toContainText(`Invitation for ${people[who].email} as ${who}`);
  return link;
}

/** A fresh browser (no session) signs up through the link and lands in the approvals inbox. */
async function signUp(browser: Browser, who: keyof typeof people): Promise<Page> {
  const page = await (await browser.newContext()).newPage();
  await page.goto(links[who]!);
  await expect(page.getByRole("heading", { name: "Join EvoTrainer" })).toBeVisible();
  await expect(page.locator("main")).toContainText(`as ${who}`);
  await expect(page.getByLabel("Email")).toHaveValue(people[who].email);
  await page.getByLabel("Your name").fill(people[who].name);
  await page.getByLabel(/Choose a password/).fill(people[who].password);
  await page.screenshot({ path: `${shots}/members-join-${who}.png`, fullPage: true });
  await page.getByRole("button", { name: "Join", exact: true }).click();
  // Hashing the password, then signing in, is slow on a loaded machine.
  await expect(page.getByTestId("signed-in-as")).toHaveText(people[who].email, { timeout: 30_000 });
  await expect(page).toHaveURL(/\/approvals$/);
  return page;
}

test("an admin invites an approver and a viewer by link, shown once", async ({ page }) => {
  await signIn(page, seed.users.admin.email);
  await page.getByRole("link", { name: "Members", exact: true }).click();
  await expect(page.getByRole("heading", { name: "Members", exact: true })).toBeVisible();
  await expect(page.getByTestId("member-row")).toHaveCount(3);
  links.approver = await invite(page, "approver");
  await page.screenshot({ path: `${shots}/members-invite.png`, fullPage: true });
  await page.getByRole("button", { name: "Done" }).click();
  await expect(page.getByTestId("once-link")).toHaveCount(0);
  links.viewer = await invite(page, "viewer");
  await expect(page.locator("section", { hasText: "Pending invitations" })).toContainText(people.approver.email);
});

test("the invited approver signs up through the link and approves, against a failed verdict only with a reason", async ({ browser }) => {
  const page = await signUp(browser, "approver");
  const items = page.getByTestId("inbox-item");
  await expect(items).toHaveCount(2);

  const passed = items.filter({ hasText: "v1" });
  // Approving asks first, and Cancel leaves the branch undecided.
  await passed.getByRole("button", { name: "Approve…", exact: true }).click();
  await expect(passed.getByTestId("approve-confirmation")).toContainText("A promotion is not undone");
  await passed.getByRole("button", { name: "Cancel" }).click();
  await expect(passed.getByTestId("approve-confirmation")).toHaveCount(0);
  await passed.getByRole("button", { name: "Approve…", exact: true }).click();
  await passed.getByRole("button", { name: "Confirm approve" }).click();
  // Dropped at once: no live buttons on a decided branch.
  await expect(items).toHaveCount(1);

  const failed = items.filter({ hasText: "v2" });
  await failed.getByRole("button", { name: "Approve anyway…" }).click();
  const warning = failed.getByTestId("override-warning");
  await expect(warning).toContainText("The verdict failed 1 check");
  await expect(warning).toContainText("main_score_vs_parent");
  await expect(failed.getByRole("button", { name: "Approve anyway", exact: true })).toBeDisabled();
  await failed.getByLabel(/Why approve against the verdict/).fill("the regression is inside the noise floor of the promotion split");
  await page.screenshot({ path: `${shots}/members-approve-anyway.png`, fullPage: true });
  await failed.getByRole("button", { name: "Approve anyway", exact: true }).click();
  await expect(page.getByTestId("inbox-empty")).toBeVisible();

  // The override is in the branch's decisions with its reason.
  await page.goto(`/runs/${seed.run.id}/branches/${seed.branches.v2.id}`);
  await expect(page.getByTestId("decisions")).toContainText("the regression is inside the noise floor of the promotion split");

  // The link worked once.
  const again = await (await browser.newContext()).newPage();
  await again.goto(links.approver!);
  await expect(again.getByTestId("link-refused")).toContainText("already used: ask an admin for a new one");
});

test("the invited viewer reads but sees no decision buttons, and the API answers 403", async ({ browser, baseURL }) => {
  const page = await signUp(browser, "viewer");
  await page.goto(`/runs/${seed.run.id}/branches/${seed.branches.v4.id}`);
  await expect(page.getByRole("heading", { name: "Branch v4" })).toBeVisible();
  await expect(page.getByRole("button", { name: /Approve|Veto|Revise/ })).toHaveCount(0);

  const refused = await page.request.post("/api/trpc/decision.approve", {
    headers: { origin: baseURL!, "content-type": "application/json" },
    data: { json: { branchId: seed.branches.v4.id } },
  });
  expect(refused.status()).toBe(403);
  // Nor may a viewer pause the run, nor see its controls.
  const pause = await page.request.post("/api/trpc/runControl.pause", { headers: { origin: baseURL!, "content-type": "application/json" }, data: { json: { runId: seed.run.id } } });
  expect(pause.status()).toBe(403);
  await page.goto(`/runs/${seed.run.id}`);
  await expect(page.getByRole("heading", { name: seed.run.name })).toBeVisible();
  await expect(page.getByTestId("run-control")).toHaveCount(0);

  await page.goto("/settings/members");
  await expect(page.getByTestId("members-read-only")).toContainText("only admins invite members");
  await expect(page.getByRole("button", { name: "Create invitation link" })).toHaveCount(0);
  await expect(page.getByTestId("members-table")).toContainText(people.approver.email);
  await page.screenshot({ path: `${shots}/members-viewer.png`, fullPage: true });
});

test("an admin changes a role and hands out a password-reset link; the last admin stays", async ({ page, browser }) => {
  await signIn(page, seed.users.admin.email);
  await page.goto("/settings/members");
  await page.getByLabel(`Role of ${people.viewer.email}`).selectOption("approver");
  await expect(page.getByLabel(`Role of ${people.viewer.email}`)).toHaveValue("approver");

  await page.getByLabel(`Role of ${seed.users.admin.email}`).selectOption("viewer");
  await expect(page.locator("main [role=alert]")).toContainText("the last admin cannot be made viewer");
  await expect(page.getByLabel(`Role of ${seed.users.admin.email}`)).toHaveValue("admin");

  await page.getByTestId("member-row").filter({ hasText: people.viewer.email }).getByRole("button", { name: "Reset password link" }).click();
  const link = (await page.getByTestId("once-link-url").textContent())!;
  expect(link).toContain("/reset-password/evr_");
  const reset = await (await browser.newContext()).newPage();
  await reset.goto(link);
  await reset.getByLabel(/New password/).fill("a fresh viewer password");
  await reset.getByRole("button", { name: "Set password and sign in" }).click();
  await expect(reset.getByTestId("signed-in-as")).toHaveText(people.viewer.email, { timeout: 30_000 });
});

test("an admin overrides the policy's veto with a reason; the branch is promoted and the override shown", async ({ page }) => {
  const db = createDatabase(process.env.DATABASE_URL!);
  try {
    // As the worker's verdict step leaves a branch its gate rejected in full autonomy.
    await db.decision.create({ data: { branchId: seed.branches.v3.id, stage: "completion", kind: "veto", actorType: "policy", reason: "main_score_vs_parent: delta -0.0400" } });
  } finally {
    await db.$disconnect();
  }
  await signIn(page, seed.users.admin.email);
  await page.goto(`/runs/${seed.run.id}/branches/${seed.branches.v3.id}`);
  const panel = page.getByTestId("veto-override");
  await expect(panel).toContainText("The autonomy policy vetoed this branch: main_score_vs_parent: delta -0.0400");
  await panel.getByRole("button", { name: "Override the veto…" }).click();
  await expect(panel.getByTestId("override-warning")).toContainText("main_score_vs_parent");
  await expect(panel.getByRole("button", { name: "Override and promote" })).toBeDisabled();
  await panel.getByLabel(/Why override the policy/).fill("the drop is one task out of fifty; keep the branch to build on");
  await page.screenshot({ path: `${shots}/members-veto-override.png`, fullPage: true });
  await panel.getByRole("button", { name: "Override and promote" }).click();
  await expect(page.locator(".run-header .status")).toHaveText("promoted");
  await expect(page.getByTestId("decisions")).toContainText("the drop is one task out of fifty");
  await expect(page.getByTestId("override-pill")).toBeVisible();
});
