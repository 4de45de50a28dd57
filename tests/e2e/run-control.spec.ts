import { readFileSync } from "node:fs";
import { expect, test } from "@playwright/test";
import { parse } from "yaml";
import { runConfigSchema } from "@evotrainer/core";
import { createDatabase, createRun } from "@evotrainer/db";
import { createProducerConnection, Producer, QueueName } from "@evotrainer/queue";
import { seedDashboard } from "../support/dashboard-seed.ts";
import { signIn } from "./sign-in.ts";

// An approver pauses, resumes and stops a live gym run trained by the quickstart's own worker.
const shots = "test-results/screenshots";
const db = createDatabase(process.env.DATABASE_URL!);
const connection = createProducerConnection(process.env.REDIS_URL ?? "redis://127.0.0.1:6379");
const producer = new Producer(connection, process.env.EVO_QUEUE_PREFIX ?? "evo");
let people: Awaited<ReturnType<typeof seedDashboard>>["users"];
let runId: string;
let baseBranchId: string;

test.beforeAll(async () => {
  const seed = await seedDashboard(db, "control");
  people = seed.users;
  const config = runConfigSchema.parse({
    ...(parse(readFileSync("examples/gym-math.yaml", "utf8")) as Record<string, unknown>),
    name: "controlled-gym-math",
    // Long enough that the base job is still running when the browser pauses the run.
    search: { proposals: 2, keep: 1, stepsPerBranch: 600, proposer: "rule", control: "none", acceptUnboundedFalsePromotions: true },
    budget: { gpuSeconds: 3_600, branches: 4, rounds: 3 },
  });
  const created = await createRun(db, config, { organizationId: seed.org.id });
  ({ runId, baseBranchId } = created);
  await connection.connect();
});

test.afterAll(async () => {
  await producer.close();
  connection.disconnect();
  await db.$disconnect();
});

async function loopIdle(): Promise<boolean> {
  for (const name of [QueueName.Propose, QueueName.Dispatch, QueueName.Monitor, QueueName.Verdict, QueueName.Decide]) {
    const counts = await producer.queue(name).getJobCounts("waiting", "active", "delayed", "prioritized");
    if (Object.values(counts).some((n) => n > 0)) return false;
  }
  return true;
}

test("an approver pauses a live run (its job finishes, none starts), resumes it, and stops it", async ({ page, browser }) => {
  test.setTimeout(300_000);
  // Signed in and on the page before the base branch is queued, so the click lands while its job trains.
  await signIn(page, people.approver.email);
  await page.goto(`/runs/${runId}`);
  const panel = page.getByTestId("run-control");
  await expect(panel.getByRole("button", { name: "Pause" })).toBeEnabled();
  await producer.enqueue(QueueName.Dispatch, { runId, branchId: baseBranchId });
  await expect.poll(async () => (await db.job.findFirst({ where: { branchId: baseBranchId, state: "running" } })) !== null, { timeout: 120_000, intervals: [100] }).toBe(true);
  await panel.getByRole("button", { name: "Pause" }).click();
  await expect(panel.getByTestId("run-control-note")).toHaveText("Run is now paused.");
  await expect(page.locator(".run-header .status")).toHaveText("paused");

  await expect.poll(async () => (await db.branch.findUniqueOrThrow({ where: { id: baseBranchId } })).status, { timeout: 180_000 }).toMatch(/promoted|rejected/);
  await expect.poll(loopIdle, { timeout: 60_000 }).toBe(true);
  expect(await db.branch.count({ where: { runId } })).toBe(1);
  await page.screenshot({ path: `${shots}/run-control-paused.png`, fullPage: true });

  await panel.getByRole("button", { name: "Resume" }).click();
  await expect(page.locator(".run-header .status")).toHaveText("running");
  await expect(page.getByTestId("tree-node-v1")).toBeVisible({ timeout: 120_000 });

  await panel.getByRole("button", { name: "Stop…" }).click();
  await panel.getByLabel("skip the sealed evaluation").check();
  await panel.getByRole("button", { name: "Confirm stop" }).click();
  await expect(page.locator(".run-header .status")).toHaveText("cancelled", { timeout: 120_000 });
  expect(await db.job.count({ where: { branch: { runId }, state: { in: ["pending", "submitted", "running"] } } })).toBe(0);
  await expect(page.getByTestId("event-timeline")).toContainText("run_stopped");
  await page.screenshot({ path: `${shots}/run-control-stopped.png`, fullPage: true });

  // A viewer of the same run sees no controls.
  const viewerContext = await browser.newContext();
  try {
    const viewer = await viewerContext.newPage();
    await signIn(viewer, people.viewer.email);
    await viewer.goto(`/runs/${runId}`);
    await expect(viewer.getByRole("heading", { name: "controlled-gym-math" })).toBeVisible();
    await expect(viewer.getByTestId("run-control")).toHaveCount(0);
  } finally {
    await viewerContext.close();
  }
});
