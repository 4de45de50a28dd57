import { createHash, randomBytes } from "node:crypto";
import { expect, test, type Page } from "@playwright/test";
import { createDatabase } from "@evotrainer/db";
import { seedDashboard } from "../support/dashboard-seed.ts";
import { signIn } from "./sign-in.ts";

// The seed's v1 has 60 rollouts, 12 flagged truncated and 9 flagged repetition_loop, labelled as the rollouts are.
let seed: Awaited<ReturnType<typeof seedDashboard>>;
const shots = "test-results/screenshots";

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  const db = createDatabase(process.env.DATABASE_URL!);
  try {
    seed = await seedDashboard(db, "label-review");
  } finally {
    await db.$disconnect();
  }
});

/** Sum of "N of M reviewed" over the queue's progress list. */
async function reviewedSoFar(page: Page): Promise<number> {
  const text = (await page.getByTestId("queue-progress").textContent()) ?? "";
  return [...text.matchAll(/(\d+) of \d+ reviewed/g)].reduce((s, m) => s + Number(m[1]), 0);
}

test("an approver reviews 30 labels from the queue with the keyboard alone", async ({ page }) => {
  await signIn(page, seed.users.approver.email);
  await page.goto(`/runs/${seed.run.id}`);
  await page.getByTestId("review-queue-link").click();
  await expect(page.getByRole("heading", { name: "Review queue" })).toBeVisible();
  await expect(page.getByTestId("queue-progress")).toContainText("truncated: 0 of 12 reviewed");
  await expect(page.getByTestId("queue-progress")).toContainText("repetition_loop: 0 of 9 reviewed");
  await expect(page.getByTestId("queue-progress")).toContainText("truncated (unflagged, for recall): 0 of 30 reviewed");
  await page.screenshot({ path: `${shots}/label-review-queue.png`, fullPage: true });

  const question = page.getByTestId("review-question");
  for (let answered = 0; answered < 30; answered++) {
    await expect(question.getByRole("button", { name: /\(y\)$/ })).toBeEnabled();
    const asked = (await question.locator("h3").textContent())!;
    // The seed's labels are right: a flag holds, and an unflagged rollout lacks the label.
    const flagged = (await question.textContent())!.includes("The detector flagged this rollout");
    await page.keyboard.press(flagged ? "y" : "n");
    // The next question replaces this one once the answer is stored.
    await expect(question.locator("h3")).not.toHaveText(asked);
  }
  await expect.poll(() => reviewedSoFar(page)).toBe(30);
  await page.screenshot({ path: `${shots}/label-review-after-30.png`, fullPage: true });
});

test("every label chip shows its reviewed precision, or not reviewed", async ({ page }) => {
  await signIn(page, seed.users.approver.email);
  await page.goto(`/runs/${seed.run.id}/branches/${seed.branches.v1.id}/rollouts?label=truncated`);
  const chip = page.getByTestId("rollout-row").first().getByTestId("label-chip");
  await expect(chip.first()).toHaveText(/^truncated · precision 1\.00 \[0\.\d\d, 1\.00\] · \d+ reviewed$/);
  await page.screenshot({ path: `${shots}/label-review-chips.png`, fullPage: true });

  // On one rollout: reject its label with n and a note; the chip's precision falls below 1.
  await page.getByTestId("rollout-row").first().click();
  const detail = page.getByTestId("rollout-detail");
  await expect(detail.getByTestId("label-chip").first()).toContainText("truncated · precision 1.00");
  await detail.getByLabel("Review note").fill("stopped at a complete sentence");
  await detail.locator("h3").click();
  await page.keyboard.press("n");
  await expect(detail.getByTestId("label-verdict").first()).toHaveText(/^rejected by Approver/);
  await expect(detail.getByTestId("label-chip").first()).toHaveText(/^truncated · precision 0\.\d\d \[0\.\d\d, 0\.\d\d\] · \d+ reviewed$/);
  // A label the detectors missed, added by hand.
  await detail.getByLabel("Missed label").selectOption("repetition_loop");
  await detail.getByRole("button", { name: "Add missed label" }).click();
  await expect(detail.getByTestId("missed-labels")).toContainText("repetition_loop: missed by the detectors");
  await page.screenshot({ path: `${shots}/label-review-rollout.png`, fullPage: true });

  // The harness page: quality and informativeness per detector.
  await page.goto("/harness");
  const table = page.getByTestId("quality-table").first();
  await expect(table.getByTestId("quality-row").filter({ hasText: "truncated" })).toContainText(/0\.\d\d \[0\.\d\d, 0\.\d\d\]/);
  await expect(table).toContainText(/marks failures|does not separate failure from success/);
  await page.screenshot({ path: `${shots}/label-review-harness.png`, fullPage: true });
});

test("a viewer sees the queue and the quality but is not offered review", async ({ page }) => {
  await signIn(page, seed.users.viewer.email);
  await page.goto(`/runs/${seed.run.id}/review`);
  await expect(page.getByTestId("review-question")).toContainText("Viewers and share links see the queue; approvers and admins review.");
  await expect(page.getByRole("button", { name: /\(y\)$/ })).toHaveCount(0);
});

test("a share link opens the review queue and a branch's GRPO groups, read-only", async ({ page }) => {
  const token = `evs_${randomBytes(32).toString("base64url")}`;
  let rolloutId = "";
  const db = createDatabase(process.env.DATABASE_URL!);
  try {
    await db.shareLink.create({ data: { runId: seed.run.id, tokenHash: createHash("sha256").update(token).digest("hex"), createdById: seed.users.approver.id } });
    rolloutId = String((await db.rollout.findFirstOrThrow({ where: { branchId: seed.branches.v1.id, split: "train" } })).id);
  } finally {
    await db.$disconnect();
  }
  // Before: both links on the shared pages led to a 404.
  await page.goto(`/share/${token}`);
  await page.getByTestId("review-queue-link").click();
  await expect(page).toHaveURL(new RegExp(`/share/${token}/review$`));
  await expect(page.getByTestId("queue-progress")).toContainText("truncated: ");
  await expect(page.getByTestId("review-question")).toContainText("Viewers and share links see the queue; approvers and admins review.");
  await expect(page.getByRole("button", { name: /\(y\)$/ })).toHaveCount(0);
  await page.screenshot({ path: `${shots}/share-review-queue.png`, fullPage: true });

  await page.goto(`/share/${token}/branches/${seed.branches.v1.id}`);
  await page.getByRole("link", { name: "Dead GRPO groups of this branch →" }).click();
  await expect(page.getByRole("heading", { name: "Dead groups" })).toBeVisible();
  await page.goto(`/share/${token}/branches/${seed.branches.v1.id}/groups?r=${rolloutId}`);
  await expect(page.getByTestId("group-view")).toContainText("Group ");
  // The seed's groups hold one sample each: neither dead nor carrying signal (it read "Its 1 samples got different rewards").
  await expect(page.getByTestId("group-single")).toBeVisible();
  await page.screenshot({ path: `${shots}/share-groups.png`, fullPage: true });
});
