import { spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { createDatabase } from "@evotrainer/db";
import { seedDashboard } from "../support/dashboard-seed.ts";
import { writeVerlRunDir } from "../support/verl-run-dir.ts";
import { signIn } from "./sign-in.ts";

// A verl run a team already has, imported with the real CLI, charts like a branch the loop trained.
const shots = "test-results/screenshots";
const db = createDatabase(process.env.DATABASE_URL!);

test.afterAll(() => db.$disconnect());

test("an imported verl branch shows its training-reward and dead-group charts", async ({ page }) => {
  const seed = await seedDashboard(db, "imported");
  const dir = join(mkdtempSync(join(tmpdir(), "evo-e2e-verl-")), "run");
  writeVerlRunDir(dir);
  const imported = spawnSync(process.execPath, ["--import", "tsx", "apps/cli/src/main.ts", "import", "verl", dir, "--run", seed.run.id, "--json"], {
    env: process.env,
    encoding: "utf8",
  });
  expect(imported.status, imported.stderr).toBe(0);
  const { branchVersion } = JSON.parse(imported.stdout) as { branchVersion: number };

  await signIn(page, seed.users.viewer.email);
  await page.goto(`/runs/${seed.run.id}`);
  // The imported branch alone in the charts: picked first (with nothing picked, the page charts its own choice).
  const chips = page.getByLabel("Branches in the charts");
  await chips.getByRole("checkbox", { name: `v${branchVersion}`, exact: true }).check();
  for (const checked of await chips.getByRole("checkbox", { checked: true }).all()) {
    const name = await checked.evaluate((box) => box.closest("label")?.textContent?.trim());
    if (name !== `v${branchVersion}`) await checked.uncheck();
  }
  await expect(chips.getByRole("checkbox", { checked: true })).toHaveCount(1);

  for (const title of ["Training reward", "Dead-group ratio"]) {
    const chart = page.locator(".chart").filter({ has: page.getByRole("heading", { name: title }) });
    await expect(chart.locator(".recharts-line-curve")).toHaveCount(1);
    await expect(chart.locator(".recharts-legend-item-text")).toHaveText(`v${branchVersion}`);
  }
  await page.getByRole("heading", { name: "Metrics" }).scrollIntoViewIfNeeded();
  await page.screenshot({ path: `${shots}/imported-verl-charts.png`, fullPage: true });
});
