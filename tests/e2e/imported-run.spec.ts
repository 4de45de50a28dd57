import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { parse, stringify } from "yaml";
import { createLocalUser } from "@evotrainer/api";
import { createDatabase } from "@evotrainer/db";
import { SEED_PASSWORD } from "../support/dashboard-seed.ts";
import { writeVerlRunDir } from "../support/verl-run-dir.ts";
import { signIn } from "./sign-in.ts";
import { CLI } from "../support/cli.ts";

// A verl run a team already has, imported with the real CLI as a run of its own, charts like a branch
// the loop trained.
const shots = "test-results/screenshots";
const db = createDatabase(process.env.DATABASE_URL!);

test.afterAll(() => db.$disconnect());

test("an imported verl branch shows its training-reward and dead-group charts", async ({ page }) => {
  const scratch = mkdtempSync(join(tmpdir(), "evo-e2e-verl-"));
  const dir = join(scratch, "run");
  writeVerlRunDir(dir);
  const configFile = join(scratch, "run.yaml");
  const config = { ...(parse(readFileSync("examples/gym-math.yaml", "utf8")) as object), name: `imported-verl-${Date.now()}`, adapter: "verl" };
  writeFileSync(configFile, stringify(config));
  const imported = spawnSync(process.execPath, [CLI, "import", "verl", dir, "--config", configFile, "--json"], {
    env: process.env,
    encoding: "utf8",
  });
  expect(imported.status, imported.stderr).toBe(0);
  const { runId } = JSON.parse(imported.stdout) as { runId: string };

  // The CLI lands a run it creates in the local organization; a viewer of it reads the run.
  const run = await db.run.findUniqueOrThrow({ where: { id: runId } });
  const email = `imported-viewer-${Date.now()}@example.test`;
  await createLocalUser(db, { email, name: "Imported viewer", password: SEED_PASSWORD, organizationId: run.organizationId, role: "viewer" });
  await signIn(page, email);
  await page.goto(`/runs/${runId}`);

  // The imported branch is the run's only one: each chart draws exactly its series.
  for (const title of ["Training reward", "Dead-group ratio"]) {
    const chart = page.locator(".chart").filter({ has: page.getByRole("heading", { name: title }) });
    await expect(chart.locator(".recharts-line-curve")).toHaveCount(1);
    await expect(chart.locator(".recharts-legend-item-text")).toHaveText("v0");
    await expect(chart.getByTestId("chart-empty")).toHaveCount(0);
  }
  await page.getByRole("heading", { name: "Metrics" }).scrollIntoViewIfNeeded();
  await page.screenshot({ path: `${shots}/imported-verl-charts.png`, fullPage: true });
});
