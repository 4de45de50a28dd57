import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { parse, stringify } from "yaml";
import { createLocalUser } from "@evotrainer/api";
import { createDatabase } from "@evotrainer/db";
import { SEED_PASSWORD, seedDashboard } from "../support/dashboard-seed.ts";
import { writeVerlRunDir } from "../support/verl-run-dir.ts";
import { signIn } from "./sign-in.ts";

// The views RL practitioners ask for: a GRPO group side by side, a task's history, reward components
// and per-token log-probs, on the seeded gym demo run and on a verl run imported with the real CLI.
const shots = "test-results/screenshots";
const db = createDatabase(process.env.DATABASE_URL!);

test.afterAll(() => db.$disconnect());

test("the gym demo run: a group side by side from a rollout and from the dead-group chart, the task's history, reward components and a token heat strip", async ({ page }) => {
  const seed = await seedDashboard(db, "practitioner");
  const { v1, v2 } = seed.branches;
  // Step 30 of v1 as a GRPO trainer writes it: one live group of four, with the trainer's advantages and one
  // completion's per-token log-probs, and one dead group (every reward 0).
  const common = { runId: seed.run.id, branchId: v1.id, split: "train" as const, step: 30, taskId: "task-7", prompt: "What is 12 times 7?", finishReason: "stop" };
  const live = [1, 0, 1, 0.2].map((reward, sample) => ({
    ...common,
    groupId: "g-live",
    sample,
    reward,
    advantage: [0.87, -1.3, 0.87, -0.44][sample]!,
    rewardComponents: { correct: reward === 1 ? 1 : 0, format: 1 },
    responseTokens: 3,
    response: reward === 1 ? "It is 84." : "It is 74.",
    uid: `live-${sample}`,
    ...(sample === 0 ? { tokens: { logprobs: [-0.01, -2.5, -6.2], entropies: [0.05, 1.9, 3.1], pieces: ["It", " is", " 84."] } } : {}),
  }));
  const dead = [0, 1, 2, 3].map((sample) => ({ ...common, taskId: "task-8", groupId: "g-dead", sample, reward: 0, rewardComponents: { correct: 0, format: 0 }, responseTokens: 5, response: "no idea", uid: `dead-${sample}` }));
  await db.rollout.createMany({ data: [...live, ...dead] });
  // The label aggregates ingest writes with a step: every detector ran on step 30's eight rollouts and found nothing.
  const detectors = await db.labelStat.findMany({ where: { branchId: v1.id }, distinct: ["detectorId"], select: { detectorId: true, label: true } });
  await db.labelStat.createMany({ data: detectors.map((d) => ({ ...d, branchId: v1.id, split: "train" as const, step: 30, count: 0, total: 8 })) });
  const first = await db.rollout.findFirstOrThrow({ where: { branchId: v1.id, uid: "live-0" } });

  await signIn(page, seed.users.viewer.email);
  await page.goto(`/runs/${seed.run.id}/branches/${v1.id}/rollouts?r=${first.id}`);
  const detail = page.getByTestId("rollout-detail");
  // Token view: each token shaded by its log-prob, its numbers on hover.
  const strip = detail.getByTestId("token-strip");
  await expect(strip.getByTestId("token")).toHaveCount(3);
  await expect(strip.getByTestId("token").nth(2)).toHaveAttribute("title", /" 84\." · log-prob -6\.2 · entropy 3\.1/);
  await expect(strip).toContainText("3 tokens · mean log-prob -2.903");
  // Task history on this branch: task-7 at every step it was sampled.
  await expect(detail.getByTestId("task-history")).toContainText("step 30");
  await expect(detail.getByTestId("task-history-row")).toContainText("0.550");
  await page.screenshot({ path: `${shots}/views-rollout-tokens.png`, fullPage: true });

  await detail.getByTestId("open-group").click();
  const group = page.getByTestId("group-view");
  await expect(group).toContainText("Group g-live · task task-7 · step 30");
  await expect(group.getByTestId("group-alive")).toBeVisible();
  await expect(group).toContainText("Advantages recorded by the trainer");
  const members = group.getByTestId("group-members").getByRole("row");
  await expect(members).toHaveCount(5);
  await expect(members.nth(2)).toContainText("-1.3");
  await page.screenshot({ path: `${shots}/views-group.png`, fullPage: true });

  // From the run page's dead-group chart to the dead group.
  await page.goto(`/runs/${seed.run.id}`);
  await page.getByTestId("dead-group-links").getByRole("link", { name: "v1" }).click();
  await page.getByTestId("dead-groups").getByRole("link", { name: "g-dead" }).click();
  await expect(page.getByTestId("group-view")).toContainText("Group g-dead");
  await expect(page.getByTestId("group-dead")).toBeVisible();
  await expect(page.getByTestId("group-view")).toContainText("every advantage is zero");
  await expect(page.getByTestId("group-view")).toContainText("Advantages recomputed as GRPO does");

  // Reward components: each component's share of the reward per step.
  await page.goto(`/runs/${seed.run.id}/branches/${v1.id}`);
  const components = page.getByTestId("reward-components");
  await expect(components.getByRole("columnheader")).toHaveText(["step", "correct", "format"]);
  await expect(components.getByRole("row", { name: /^30 / })).toContainText("33%");
  await page.screenshot({ path: `${shots}/views-reward-components.png`, fullPage: true });

  // The same task across branches on the compare page.
  await page.goto(`/runs/${seed.run.id}/compare?b=${v1.id},${v2.id}`);
  const task = page.getByTestId("compare-task").filter({ hasText: "task-0" });
  await task.getByRole("button", { name: "History across steps" }).click();
  const rows = task.getByTestId("task-history-row");
  await expect(rows).toHaveCount(2);
  await expect(rows.first()).toContainText("v1");
  await expect(rows.nth(1)).toContainText("v2");
  // The label-rate table lists what the label-rate charts plot: over the last training steps (28–30) v1 has none.
  const labelRates = page.getByTestId("compare-labels");
  await expect(labelRates.getByRole("row", { name: /^truncated/ })).toContainText("0.0%");
  await expect(labelRates.getByRole("row", { name: /^repetition_loop/ })).toContainText("0.0%");
  await expect(page.getByText("No label detector has run")).toHaveCount(0);
  await page.screenshot({ path: `${shots}/views-compare-task-history.png`, fullPage: true });
});

test("an imported verl run: its groups, task history and components, and the token view says imported data has no log-probs", async ({ page }) => {
  const scratch = mkdtempSync(join(tmpdir(), "evo-e2e-views-"));
  const dir = join(scratch, "run");
  writeVerlRunDir(dir);
  const configFile = join(scratch, "run.yaml");
  writeFileSync(configFile, stringify({ ...(parse(readFileSync("examples/gym-math.yaml", "utf8")) as object), name: `imported-views-${Date.now()}`, adapter: "verl" }));
  const imported = spawnSync(process.execPath, ["--import", "tsx", "apps/cli/src/main.ts", "import", "verl", dir, "--config", configFile, "--json"], { env: process.env, encoding: "utf8" });
  expect(imported.status, imported.stderr).toBe(0);
  const { runId } = JSON.parse(imported.stdout) as { runId: string };
  const run = await db.run.findUniqueOrThrow({ where: { id: runId } });
  const email = `views-viewer-${Date.now()}@example.test`;
  await createLocalUser(db, { email, name: "Views viewer", password: SEED_PASSWORD, organizationId: run.organizationId, role: "viewer" });
  const rollout = await db.rollout.findFirstOrThrow({ where: { runId, split: "train", step: 1 }, orderBy: { sample: "asc" } });

  await signIn(page, email);
  await page.goto(`/runs/${runId}/branches/${rollout.branchId}/rollouts?r=${rollout.id}`);
  const detail = page.getByTestId("rollout-detail");
  await expect(detail.getByTestId("tokens-absent")).toHaveText("Not recorded for this rollout (imported data has no per-token log-probs).");
  await expect(detail.getByTestId("task-history")).toContainText("step 3");
  await page.screenshot({ path: `${shots}/views-imported-rollout.png`, fullPage: true });

  await detail.getByTestId("open-group").click();
  const group = page.getByTestId("group-view");
  await expect(group.getByTestId("group-members").getByRole("row")).toHaveCount(5);
  await expect(group.getByTestId("group-alive")).toBeVisible();
  await expect(group).toContainText("Advantages recomputed as GRPO does");
  await page.screenshot({ path: `${shots}/views-imported-group.png`, fullPage: true });

  await page.goto(`/runs/${runId}/branches/${rollout.branchId}`);
  await expect(page.getByTestId("reward-components").getByRole("columnheader")).toHaveText(["step", "correctness", "format"]);
});
