import { expect, test, type Page } from "@playwright/test";
import { createDatabase, json } from "@evotrainer/db";
import { seedDashboard } from "../support/dashboard-seed.ts";
import { signIn } from "./sign-in.ts";

// Pages explain rather than dump: findings by title, numbers a person reads, stored JSON as words.
const shots = "test-results/screenshots";
const db = createDatabase(process.env.DATABASE_URL!);
let seed: Awaited<ReturnType<typeof seedDashboard>>;

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  seed = await seedDashboard(db, "readable");
  const { base, v1, v2, v4 } = seed.branches;
  // What a real gym run leaves: its base branch judged "rejected" by its own evaluation, yet the reference on the best path.
  await db.branch.update({ where: { id: base.id }, data: { status: "rejected" } });
  // The best-so-far is a child of the base, so the best path has an edge to draw in gold.
  await db.run.update({ where: { id: seed.run.id }, data: { bestBranchId: v1.id } });
  // Raw figures as the loop writes them: an expected size with sixteen decimals, whole-number changes.
  const v1Row = await db.branch.findUniqueOrThrow({ where: { id: v1.id }, select: { interventionId: true } });
  await db.intervention.update({ where: { id: v1Row.interventionId! }, data: { expectedEffect: { direction: "down", size: 0.4583333333333333 } } });
  const backtest = await db.backtest.findUniqueOrThrow({ where: { interventionId: v1Row.interventionId! } });
  await db.backtest.update({ where: { id: backtest.id }, data: { report: json({ ...(backtest.report as object), kept: { before: 640, after: 464 } }) } });
  // A long factor name, as reward-shaping interventions have.
  const v4Row = await db.branch.findUniqueOrThrow({ where: { id: v4.id }, select: { interventionId: true } });
  await db.intervention.update({ where: { id: v4Row.interventionId! }, data: { factor: "reward.components.format_weight" } });
  // The diagnosis as core's healthReport() writes it (title and source, evidence with unrounded metrics).
  await db.event.create({
    data: {
      runId: seed.run.id,
      branchId: v1.id,
      type: "diagnosis",
      actor: "system",
      payload: json({
        round: 2,
        harnessVersion: 1,
        worst: "WARN",
        layers: {
          score: [],
          signal: [{ layer: "signal", level: "CRIT", source: "dead-groups-crit", title: "Most GRPO groups carry no signal", evidence: { metrics: { dead_group_ratio: 0.5833333333333334 }, counts: {}, exampleUids: ["v1-1", "v1-2"] } }],
          behaviour: [{ layer: "behaviour", level: "WARN", source: "label:truncated", title: "Truncated responses", evidence: { metrics: { "label_rate.truncated": 0.2 }, counts: { truncated: 12 }, exampleUids: ["v1-0"] } }],
        },
      }),
    },
  });
  // A comparison that measured nothing at all, as the control check does when both arms score the same.
  const verdict = await db.verdict.findUniqueOrThrow({ where: { branchId: v2.id } });
  const zero = { name: "main_score_vs_control", passed: false, detail: "vs the control: no difference", numbers: { delta: 0, threshold: 0, p: 1, holmLevel: 0.05, holmRank: 2, family: 2, seedSd: 0, noiseDf: 64, seSeed: 0, seTask: 0, se: 0, df: 64, tasks: 64, controls: 1 } };
  await db.verdict.update({ where: { id: verdict.id }, data: { checks: json([zero, ...(verdict.checks as object[])]) } });
  // Test results on one rollout, stored as the contract's object.
  await db.rollout.updateMany({ where: { branchId: v1.id, uid: "v1-0" }, data: { testResults: { passed: 3, total: 5, status: "Wrong Answer" } } });
});

test.afterAll(() => db.$disconnect());

/** Numbers with more than four significant decimals ("0.4583333333333333", "0.123456"). */
function longNumbers(text: string): string[] {
  return [...text.matchAll(/(\d+)\.(\d+)/g)]
    .filter(([, whole, fraction]) => (whole === "0" ? fraction!.replace(/^0+/, "") : fraction!).length > 4)
    .map(([m]) => m);
}

async function expectReadable(page: Page) {
  // innerText, not textContent: adjacent table cells ("0", "0.200", "1024") must not run together into one number.
  const text = await page.locator("main").innerText();
  expect(text).not.toContain('{"');
  expect(longNumbers(text)).toEqual([]);
}

test("a branch page: health findings by title, numbers rounded, whole changes whole, a zero strip said in words", async ({ page }) => {
  await signIn(page, seed.users.approver.email);
  await page.goto(`/runs/${seed.run.id}/branches/${seed.branches.v1.id}`);
  await expect(page.getByRole("heading", { name: "Branch v1" })).toBeVisible();
  const findings = page.getByTestId("health-finding");
  await expect(findings).toHaveCount(2);
  await expect(findings.first()).toContainText("Most GRPO groups carry no signal");
  await expect(findings.first()).toContainText("dead group ratio 0.5833 · 2 example rollouts");
  await expect(findings.nth(1)).toContainText("Truncated responses");
  await expect(findings.nth(1)).toContainText("truncated: 12 rollouts");
  await expect(page.getByTestId("intervention")).toContainText("truncation_rate goes down by about 0.4583");
  const kept = page.getByTestId("backtest-report").getByRole("row", { name: /rollouts in the loss/ });
  await expect(kept).toContainText("-176");
  await expect(kept).not.toContainText("-176.0");
  await expect(page.getByTestId("backtest-report").getByRole("row", { name: /dead groups/ })).toContainText("-7");
  await expectReadable(page);
  await page.screenshot({ path: `${shots}/readable-branch.png`, fullPage: true });

  await page.goto(`/runs/${seed.run.id}/branches/${seed.branches.v2.id}`);
  const control = page.locator('[data-check="main_score_vs_control"]');
  await expect(control.getByTestId("no-difference")).toContainText("No difference was measured");
  await expect(control.locator("dl.numbers")).toHaveCount(0);
  await expectReadable(page);
  await page.screenshot({ path: `${shots}/readable-verdict.png`, fullPage: true });
});

test("the harness, skills and rollouts pages show stored JSON as words", async ({ page }) => {
  await signIn(page, seed.users.approver.email);
  await page.goto("/harness");
  const version = page.getByTestId("harness-version").filter({ hasText: seed.run.name });
  // The recorded reason is the sentence itself: its key is not said a second time.
  await expect(version.getByTestId("registered-because")).toHaveText("Registered because catalog defaults for math.");
  await expectReadable(page);
  await page.screenshot({ path: `${shots}/readable-harness.png`, fullPage: true });

  await page.goto("/skills");
  const skill = page.getByTestId("skills-table").getByRole("row", { name: /raise-response-budget/ }).first();
  await expect(skill).toContainText("factor");
  await expect(skill).toContainText("maxResponseTokens");
  await expectReadable(page);

  const first = await db.rollout.findFirstOrThrow({ where: { branchId: seed.branches.v1.id, uid: "v1-0" } });
  await page.goto(`/runs/${seed.run.id}/branches/${seed.branches.v1.id}/rollouts?r=${first.id}`);
  const detail = page.getByTestId("rollout-detail");
  await expect(detail.getByTestId("rollout-labels")).toContainText("finish reason: length");
  await expect(detail).toContainText("Wrong Answer");
  // Label chips in the table read in full: none is cut by its cell, even two on one row (v1-10).
  const table = page.getByTestId("rollouts-table");
  const twoLabels = table.getByTestId("rollout-row").filter({ hasText: "repetition_loop" }).filter({ hasText: "truncated ·" });
  await expect(twoLabels).toHaveCount(1);
  expect((await twoLabels.getByTestId("label-chip").allInnerTexts()).sort()).toEqual(["repetition_loop · not reviewed", "truncated · not reviewed"]);
  const chips = table.getByTestId("label-chip");
  expect(await chips.count()).toBeGreaterThan(5);
  const clipped = await chips.evaluateAll((els) =>
    els
      .filter((el) => {
        const chip = el.getBoundingClientRect();
        const cell = el.closest(".rt-cell")!.getBoundingClientRect();
        return el.scrollWidth > el.clientWidth + 1 || chip.right > cell.right + 1 || chip.bottom > cell.bottom + 1;
      })
      .map((el) => el.textContent),
  );
  expect(clipped).toEqual([]);
  await expectReadable(page);
  await page.screenshot({ path: `${shots}/readable-rollouts.png`, fullPage: true });
});

test("the tree at 1024 px: the base on the best path reads 'reference', and long factor names can be read", async ({ page }) => {
  await page.setViewportSize({ width: 1024, height: 900 });
  await signIn(page, seed.users.viewer.email);
  await page.goto(`/runs/${seed.run.id}`);
  const v0 = page.getByTestId("tree-node-v0");
  await expect(v0.getByTestId("tree-badge")).toHaveText("reference");
  await expect(v0).toHaveClass(/best/);
  // The best-so-far path is drawn in gold edge by edge (best is v1 here, a child of the base); other edges are not.
  const edge = (child: string) => page.getByTestId(`rf__edge-${seed.branches.base.id}-${child}`);
  await expect(edge(seed.branches.v1.id)).toHaveClass(/edge-best/);
  await expect(edge(seed.branches.v1.id).locator("path.react-flow__edge-path")).toHaveCSS("stroke", "rgb(242, 204, 96)");
  await expect(edge(seed.branches.v2.id)).not.toHaveClass(/edge-best/);
  await expect(edge(seed.branches.v2.id).locator("path.react-flow__edge-path")).not.toHaveCSS("stroke", "rgb(242, 204, 96)");
  const v4 = page.getByTestId("tree-node-v4");
  // The full name is the node's tooltip, and it wraps inside the node rather than being cut.
  await expect(v4.getByRole("link")).toHaveAttribute("title", /reward\.components\.format_weight/);
  const factor = v4.locator(".tree-factor");
  await expect(factor).toHaveText("reward.components.format_weight");
  expect(await factor.evaluate((el) => el.scrollHeight <= el.clientHeight + 1 && el.scrollWidth <= el.clientWidth + 1)).toBe(true);
  // The top bar fits on one line at 1024 px: every link and Sign out sit level with the brand, none wrapped.
  const bar = page.locator("header.topbar");
  const brand = (await bar.locator(".brand").boundingBox())!;
  for (const item of [...(await bar.locator("nav a").all()), bar.getByRole("button", { name: "Sign out" })]) {
    const box = (await item.boundingBox())!;
    expect(Math.abs(box.y + box.height / 2 - (brand.y + brand.height / 2)), await item.innerText()).toBeLessThan(3);
    expect(box.height, await item.innerText()).toBeLessThan(brand.height * 1.5 + 12);
  }
  expect(await bar.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
  await page.screenshot({ path: `${shots}/readable-tree-1024.png` });
});

test("explorer history: Back after a second filter returns to the first", async ({ page }) => {
  await signIn(page, seed.users.viewer.email);
  await page.goto(`/runs/${seed.run.id}/branches/${seed.branches.v1.id}/rollouts`);
  await page.getByLabel("Label").selectOption("truncated");
  await page.getByRole("button", { name: "Apply" }).click();
  await expect(page).toHaveURL(/label=truncated/);
  await page.getByLabel("Step").fill("10");
  await page.getByRole("button", { name: "Apply" }).click();
  await expect(page).toHaveURL(/step=10/);
  await page.goBack();
  await expect(page).toHaveURL(/label=truncated/);
  await expect(page).not.toHaveURL(/step=10/);
  await expect(page.getByLabel("Label")).toHaveValue("truncated");
  await expect(page.getByLabel("Step")).toHaveValue("");
});

test("a viewer's Notifications page says who manages webhooks, with no form and no error", async ({ page }) => {
  await signIn(page, seed.users.viewer.email);
  await page.goto("/settings/notifications");
  await expect(page.getByTestId("notifications-admins-only")).toContainText("managed by your organization's admins");
  await expect(page.getByRole("button", { name: "Add webhook" })).toHaveCount(0);
  await expect(page.getByText("Could not load")).toHaveCount(0);
  await page.screenshot({ path: `${shots}/readable-notifications-viewer.png` });
});

test("the base branch page reads 'reference' as the tree does, and offers no veto override", async ({ page }) => {
  const { base } = seed.branches;
  // What a real gym run leaves: the base judged by its own evaluation and vetoed by the policy.
  await db.decision.create({ data: { branchId: base.id, stage: "completion", kind: "veto", actorType: "policy", reason: "main_score_vs_parent: no parent to beat" } });
  await signIn(page, seed.users.approver.email);
  await page.goto(`/runs/${seed.run.id}/branches/${base.id}`);
  const header = page.locator("header.run-header");
  await expect(header.locator(".status")).toHaveText("reference");
  await expect(header).not.toContainText("rejected");
  await expect(page.getByTestId("decisions")).toContainText("veto at completion by the autonomy policy");
  await expect(page.getByRole("button", { name: "Override the veto…" })).toHaveCount(0);
  await page.screenshot({ path: `${shots}/readable-base-branch.png` });
});

test("a policy veto on a completed run is not offered for override", async ({ page }) => {
  const { v3 } = seed.branches;
  await db.decision.create({ data: { branchId: v3.id, stage: "completion", kind: "veto", actorType: "policy", reason: "validity_limit: repetition_loop over its limit" } });
  await signIn(page, seed.users.approver.email);
  await page.goto(`/runs/${seed.run.id}/branches/${v3.id}`);
  // While the run is live the override is open...
  await expect(page.getByRole("button", { name: "Override the veto…" })).toBeVisible();
  // ...once it has completed, its result no longer changes: nothing is offered.
  await db.run.update({ where: { id: seed.run.id }, data: { status: "completed" } });
  await page.reload();
  await expect(page.getByRole("heading", { name: "Branch v3" })).toBeVisible();
  await expect(page.getByTestId("decisions")).toContainText("veto at completion by the autonomy policy");
  await expect(page.getByRole("button", { name: "Override the veto…" })).toHaveCount(0);
});
