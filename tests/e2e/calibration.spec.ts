import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { createLocalUser } from "@evotrainer/api";
import { createDatabase, createRun } from "@evotrainer/db";
import { runConfigSchema } from "@evotrainer/core";
import { readRunConfig } from "../../apps/cli/src/config-files.ts";
import { SEED_PASSWORD } from "../support/dashboard-seed.ts";
import { signIn } from "./sign-in.ts";
import { CLI } from "../support/cli.ts";

// `evotrainer calibrate --run` measures the gate on the gym; a viewer of the run reads the result on its page.
const shots = "test-results/screenshots";
const db = createDatabase(process.env.DATABASE_URL!);

test.afterAll(() => db.$disconnect());

test("the run page says its config is not calibrated and how to calibrate it, then shows the measured per-run false-promotion rate and power", async ({ page }) => {
  test.setTimeout(300_000);
  const stamp = Date.now();
  const org = await db.organization.create({ data: { name: "Calibration", slug: `calibration-${stamp}` } });
  // A run-sized config of its own (small batches, few steps): calibration measures exactly it.
  const example = readRunConfig("examples/gym-math.yaml");
  const config = runConfigSchema.parse({ ...example, name: `calibrated-${stamp}`, trainer: { tasksPerStep: 8 }, search: { ...example.search, stepsPerBranch: 6 }, budget: { ...example.budget, rounds: 3 } });
  const file = join(mkdtempSync(join(tmpdir(), "evo-e2e-calibration-")), "calibrated.yaml");
  writeFileSync(file, JSON.stringify(config));
  const { runId } = await createRun(db, config, { organizationId: org.id }, { configPath: file });
  const email = `calibration-viewer-${stamp}@example.test`;
  await createLocalUser(db, { email, name: "Calibration viewer", password: SEED_PASSWORD, organizationId: org.id, role: "viewer" });
  await signIn(page, email);

  await page.goto(`/runs/${runId}`);
  const card = page.getByTestId("gate-calibration");
  await expect(card).toContainText("Not calibrated for this config", { timeout: 30_000 });
  await expect(page.getByTestId("gate-calibration-command")).toHaveText(`evotrainer calibrate ${file} --runs 200 --run ${runId}`);

  const calibrated = spawnSync(
    process.execPath,
    [CLI, "calibrate", file, "--runs", "2", "--power-runs", "1", "--run", runId, "--json"],
    { env: process.env, encoding: "utf8" },
  );
  expect(calibrated.status, calibrated.stderr).toBe(0);
  const record = JSON.parse(calibrated.stdout) as { falsePromotion: { k: number; n: number } };

  await page.reload();
  const summary = page.getByTestId("gate-calibration-summary");
  await expect(summary).toContainText(/This gate promotes a null intervention in \d+\.\d% of runs \(95% CI \d+\.\d%–\d+\.\d%\), measured on 2 null runs of 3 rounds of this config on \d{4}-\d\d-\d\d; power in a first round: dynamic sampling/, { timeout: 30_000 });
  await expect(card).toContainText(`${record.falsePromotion.k} of ${record.falsePromotion.n} null runs promoted a null`);
  await expect(card).toContainText("measured for this run");
  await card.scrollIntoViewIfNeeded();
  await page.screenshot({ path: `${shots}/gate-calibration.png`, fullPage: true });
});
