import { createHmac } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { expect, test } from "@playwright/test";
import { parse } from "yaml";
import { parseSignatureHeader, runConfigSchema, signedString } from "@evotrainer/core";
import { createDatabase, createRun, createWebhook, masterKeyOrLocal } from "@evotrainer/db";
import { createProducerConnection, Producer, QueueName } from "@evotrainer/queue";
import { seedDashboard } from "../support/dashboard-seed.ts";
import { signIn } from "./sign-in.ts";

// A live, human-gated gym run trained by the quickstart's own worker while the browser watches.
const shots = "test-results/screenshots";
const db = createDatabase(process.env.DATABASE_URL!);
let people: Awaited<ReturnType<typeof seedDashboard>>["users"];
let runId: string;
// The organization's generic webhook: a receiver on 127.0.0.5 (the one address run.ts allows webhooks) keeps every body with its signature header.
const received: { body: string; signature: string }[] = [];
const receiver: Server = createServer((req, res) => {
  let body = "";
  req.on("data", (chunk) => (body += chunk));
  req.on("end", () => {
    received.push({ body, signature: String(req.headers["x-evotrainer-signature"] ?? "") });
    res.end("ok");
  });
});
let signingSecret: string;

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  const seed = await seedDashboard(db, "live");
  people = seed.users;
  const config = runConfigSchema.parse({
    ...(parse(readFileSync("examples/gym-math.yaml", "utf8")) as Record<string, unknown>),
    name: "live-gym-math",
    autonomy: { mode: "human_gated" },
    search: { proposals: 3, keep: 2, stepsPerBranch: 12, proposer: "rule" },
    budget: { gpuSeconds: 900, branches: 2, rounds: 1 },
  });
  await new Promise<void>((done) => receiver.listen(0, "127.0.0.5", done));
  // The quickstart's worker seals and opens webhooks with the checkout's master key, as this does.
  const hook = await createWebhook(db, seed.org.id, { name: "e2e receiver", kind: "generic", url: `http://127.0.0.5:${(receiver.address() as AddressInfo).port}/hook` }, masterKeyOrLocal());
  signingSecret = hook.signingSecret!;
  const created = await createRun(db, config, { organizationId: seed.org.id });
  runId = created.runId;
  const connection = createProducerConnection(process.env.REDIS_URL ?? "redis://127.0.0.1:6379");
  await connection.connect();
  const producer = new Producer(connection, process.env.EVO_QUEUE_PREFIX ?? "evo");
  await producer.enqueue(QueueName.Dispatch, { runId, branchId: created.baseBranchId });
  await producer.close();
  connection.disconnect();
});

test.afterAll(async () => {
  await new Promise((done) => receiver.close(done));
  await db.$disconnect();
});

async function waitingBranches(): Promise<{ id: string; version: number }[]> {
  return db.branch.findMany({ where: { runId, status: "awaiting_decision" }, orderBy: { version: "asc" }, select: { id: true, version: true } });
}

test("an approver watches a gym run grow, vetoes one waiting branch and approves the other, then reads its rollouts", async ({ page }) => {
  test.setTimeout(240_000);
  await signIn(page, people.approver.email);
  await page.goto(`/runs/${runId}`);
  await expect(page.getByTestId("tree-node-v0")).toBeVisible();

  // The tree grows as the worker trains: the base, then two children that wait for a person.
  await expect(page.getByTestId("tree-node-v1")).toBeVisible({ timeout: 180_000 });
  await expect(page.getByTestId("tree-node-v2")).toBeVisible({ timeout: 30_000 });
  await expect.poll(async () => (await waitingBranches()).length, { timeout: 180_000, intervals: [1_000] }).toBe(2);
  // The tree refits as it grows: the newest nodes are drawn inside the pane, not cut off past its edge.
  const grown = await db.branch.findFirstOrThrow({ where: { runId }, orderBy: { version: "desc" }, select: { version: true } });
  const insidePane = async () => {
    const [pane, node] = await Promise.all([page.getByTestId("branch-tree").boundingBox(), page.getByTestId(`tree-node-v${grown.version}`).boundingBox()]);
    return pane !== null && node !== null && node.y >= pane.y && node.y + node.height <= pane.y + pane.height && node.x >= pane.x && node.x + node.width <= pane.x + pane.width;
  };
  await expect.poll(insidePane, { timeout: 30_000 }).toBe(true);
  await page.reload();
  await expect(page.getByTestId("event-timeline")).toContainText("awaiting_decision");
  await page.screenshot({ path: `${shots}/live-run-page.png`, fullPage: true });

  const [first, second] = (await waitingBranches()) as [{ id: string; version: number }, { id: string; version: number }];

  // The webhook was told, signed, with a deep link that opens the waiting branch.
  const toldAbout = (branchId: string) =>
    received.map((r) => ({ ...r, json: JSON.parse(r.body) as { kind: string; branchId: string; url: string } })).find((r) => r.json.kind === "branch_awaiting_decision" && r.json.branchId === branchId);
  await expect.poll(() => toldAbout(first.id), { timeout: 120_000 }).toBeTruthy();
  const told = toldAbout(first.id)!;
  const signature = parseSignatureHeader(told.signature)!;
  expect(createHmac("sha256", signingSecret).update(signedString(signature.t, told.body)).digest("hex")).toBe(signature.v1);
  expect(told.json.url).toBe(`${new URL(page.url()).origin}/runs/${runId}/branches/${first.id}`);
  await page.goto(told.json.url);
  await expect(page.getByRole("heading", { name: `Branch v${first.version}` })).toBeVisible();
  await expect(page.getByTestId("backtest-report")).toContainText("dead groups");
  await expect(page.getByTestId("verdict")).toContainText("main_score_vs_parent");
  await expect(page.getByTestId("verdict")).toContainText("bootstrap CI");
  expect(await page.locator("main").textContent()).not.toContain('{"');
  await page.getByRole("button", { name: "Veto…" }).click();
  await page.getByLabel(/Reason for the veto/).fill("the gain is inside the noise of the promotion split");
  await page.getByRole("button", { name: "Confirm veto" }).click();
  await expect(page.locator(".run-header .status")).toHaveText("vetoed", { timeout: 20_000 });
  await expect(page.getByTestId("decisions")).toContainText("the gain is inside the noise of the promotion split");
  await page.screenshot({ path: `${shots}/live-branch-page.png`, fullPage: true });

  await page.goto(`/runs/${runId}/branches/${second.id}`);
  // Against a failed verdict, approving is an override that needs a reason.
  if ((await db.verdict.findUniqueOrThrow({ where: { branchId: second.id } })).passed) {
    await page.getByRole("button", { name: "Approve…", exact: true }).click();
    await page.getByRole("button", { name: "Confirm approve" }).click();
  } else {
    await page.getByRole("button", { name: "Approve anyway…" }).click();
    await page.getByLabel(/Why approve against the verdict/).fill("approved to follow the branch further");
    await page.getByRole("button", { name: "Approve anyway", exact: true }).click();
  }
  await expect(page.locator(".run-header .status")).toHaveText("promoted", { timeout: 20_000 });

  // The base branch's rollouts carry the detectors' labels; one label's evidence is highlighted.
  const base = await db.branch.findFirstOrThrow({ where: { runId, version: 0 } });
  const flagged = await db.rolloutLabel.findFirstOrThrow({ where: { branchId: base.id, label: "repetition_loop" } });
  await page.goto(`/runs/${runId}/branches/${base.id}/rollouts`);
  await page.getByLabel("Label").selectOption(flagged.label);
  await page.getByRole("button", { name: "Apply" }).click();
  const rows = page.getByTestId("rollout-row");
  await expect(rows.first()).toContainText("repetition_loop");
  await rows.first().click();
  const detail = page.getByTestId("rollout-detail");
  await expect(detail.getByTestId("rollout-labels")).toContainText(/math\.repetition_loop v\d+/);
  await expect(detail.getByTestId("evidence-highlight").first()).toBeVisible();
  await page.screenshot({ path: `${shots}/live-rollout-detail.png`, fullPage: true });
});

test("the live run shared read-only: a fresh browser sees the tree without decision buttons, and a revoked link answers 404", async ({ page, browser }) => {
  // The worker may still be training the sealed evaluation beside this test on a loaded machine.
  test.setTimeout(120_000);
  await signIn(page, people.approver.email);
  await page.goto(`/runs/${runId}`);
  await page.getByRole("button", { name: "Create share link" }).click();
  const url = await page.getByTestId("share-url").inputValue();
  await expect(page.getByTestId("share-link-row").getByRole("button", { name: "Revoke" })).toBeVisible({ timeout: 30_000 });

  const stranger = await browser.newContext();
  try {
    const shared = await stranger.newPage();
    expect((await shared.goto(url))?.status()).toBe(200);
    await expect(shared.getByTestId("tree-node-v2")).toBeVisible();
    await shared.getByTestId("tree-node-v2").getByRole("link").click();
    await expect(shared.getByRole("heading", { name: "Branch v2" })).toBeVisible();
    await expect(shared.getByRole("button", { name: /Approve|Veto|Revise/ })).toHaveCount(0);

    await page.getByTestId("share-link-row").getByRole("button", { name: "Revoke" }).click();
    await expect(page.getByTestId("share-link-row")).toContainText("revoked");
    expect((await shared.goto(url))?.status()).toBe(404);
  } finally {
    await stranger.close();
  }
});
