import { spawnSync } from "node:child_process";
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

test("the run page shows how to calibrate the gate, then the measured false-promotion rate and power", async ({ page }) => {
  test.setTimeout(300_000);
  const stamp = Date.now();
  const org = await db.organization.create({ data: { name: "Calibration", slug: `calibration-${stamp}` } });
  const config = runConfigSchema.parse({ ...readRunConfig("examples/gym-math.yaml"), name: `calibrated-${stamp}` });
  const { runId } = await createRun(db, config, { organizationId: org.id });
  const email = `calibration-viewer-${stamp}@example.test`;
  await createLocalUser(db, { email, name: "Calibration viewer", password: SEED_PASSWORD, organizationId: org.id, role: "viewer" });
  await signIn(page, email);

  await page.goto(`/runs/${runId}`);
  const card = page.getByTestId("gate-calibration");
  await expect(card).toContainText("No calibration yet", { timeout: 30_000 });
  await expect(card).toContainText(`evotrainer calibrate <this run's config.yaml> --trials 100 --run ${runId}`);

  const calibrated = spawnSync(
    process.execPath,
    [CLI, "calibrate", "examples/gym-math.yaml", "--trials", "4", "--steps", "8", "--tasks-per-step", "8", "--run", runId, "--json"],
    { env: process.env, encoding: "utf8" },
  );
  expect(calibrated.status, calibrated.stderr).toBe(0);
  const record = JSON.parse(calibrated.stdout) as { falsePromotion: { k: number; n: number } };

  await page.reload();
  const summary = page.getByTestId("gate-calibration-summary");
  await expect(summary).toContainText(/This gate promotes a null intervention \d+\.\d% of the time \(95% CI \d+\.\d%–\d+\.\d%\), measured on 4 trials of math on \d{4}-\d\d-\d\d; power: dynamic sampling/, { timeout: 30_000 });
  await expect(card).toContainText(`${record.falsePromotion.k} of ${record.falsePromotion.n} null candidates promoted`);
  await expect(card).toContainText("measured for this run");
  await card.scrollIntoViewIfNeeded();
  await page.screenshot({ path: `${shots}/gate-calibration.png`, fullPage: true });
});
