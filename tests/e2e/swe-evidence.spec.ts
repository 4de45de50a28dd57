import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { expect, test } from "@playwright/test";
import { createLocalUser } from "@evotrainer/api";
import { createDatabase } from "@evotrainer/db";
import { runCli } from "../support/cli.ts";
import { SEED_PASSWORD } from "../support/dashboard-seed.ts";
import { signIn } from "./sign-in.ts";

// Real SWE-bench agent trajectories (mini-swe-agent, the shared fixture), imported with the real CLI
// and labelled by the real swe catalog: the evidence the page marks is what the detectors wrote.
const shots = "test-results/screenshots";
const db = createDatabase(process.env.DATABASE_URL!);
test.afterAll(() => db.$disconnect());

test("a label's evidence is marked inside a real SWE trajectory, and the branch page shows no raw JSON", async ({ page }) => {
  const lines = gunzipSync(readFileSync("tests/fixtures/real/mini-swe-agent-gemini-3-pro-dev150.jsonl.gz")).toString("utf8").trim().split("\n");
  const file = join(mkdtempSync(join(tmpdir(), "evo-e2e-swe-")), `swe-${Date.now()}.jsonl`);
  // Tool errors that count (v4: after the first edit, not the bug reproduced) start at the 16th trajectory.
  writeFileSync(file, `${lines.slice(0, 16).join("\n")}\n`);
  const imported = await runCli(["import", "mini-swe-agent", file, "--json"], { DATABASE_URL: process.env.DATABASE_URL! });
  expect(imported.code, imported.stderr).toBe(0);
  const { runId, branchId } = JSON.parse(imported.stdout) as { runId: string; branchId: string };
  const flagged = await db.rolloutLabel.findFirst({ where: { branchId, label: "tool_error" }, select: { rolloutId: true } });
  expect(flagged, "a tool_error among the first trajectories").not.toBeNull();

  const run = await db.run.findUniqueOrThrow({ where: { id: runId } });
  const email = `swe-viewer-${Date.now()}@example.test`;
  await createLocalUser(db, { email, name: "SWE viewer", password: SEED_PASSWORD, organizationId: run.organizationId, role: "viewer" });
  await signIn(page, email);

  await page.goto(`/runs/${runId}/branches/${branchId}/rollouts?label=tool_error&r=${flagged!.rolloutId}`);
  const detail = page.getByTestId("rollout-detail");
  await expect(detail.getByTestId("rollout-labels")).toContainText("tool_error");
  // The quoted tool output is marked in its turn of the trajectory, not shown as offsets.
  const marked = detail.locator(".trajectory").getByTestId("evidence-highlight").first();
  await marked.scrollIntoViewIfNeeded();
  await expect(marked).toBeVisible();
  expect(await detail.getByTestId("rollout-labels").textContent()).not.toContain('{"');
  await page.screenshot({ path: `${shots}/swe-evidence.png` });

  await page.goto(`/runs/${runId}/branches/${branchId}`);
  await expect(page.getByRole("heading", { name: "Branch v0" })).toBeVisible();
  expect(await page.locator("main").textContent()).not.toContain('{"');
});
