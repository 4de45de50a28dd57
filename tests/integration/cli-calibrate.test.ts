import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import { contentHash, runConfigSchema } from "@evotrainer/core";
import { createDatabase, createRun, gateCalibrationForRun } from "@evotrainer/db";
import { readRunConfig } from "../../apps/cli/src/config-files.ts";
import { CLI } from "../support/cli.ts";

const databaseUrl = inject("databaseUrl");
const db = createDatabase(databaseUrl);
const dir = mkdtempSync(join(tmpdir(), "evo-cli-calibrate-"));

const cli = (...args: string[]) =>
  spawnSync(process.execPath, [CLI, ...args], { env: { ...process.env, DATABASE_URL: databaseUrl }, encoding: "utf8" });

describe("evotrainer calibrate", () => {
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    await db.$disconnect();
  });

  it("measures null runs of the run's own config as the worker runs them, stores them under its hash, and shows them only on runs of that config", async () => {
    // A run-sized config of its own: the calibration measures exactly these settings (trainer, steps, rounds).
    const small = join(dir, "small-math.yaml");
    const config = runConfigSchema.parse({ ...readRunConfig("examples/gym-math.yaml"), name: "cli-calibrate", trainer: { tasksPerStep: 8 }, search: { ...readRunConfig("examples/gym-math.yaml").search, stepsPerBranch: 6 }, budget: { gpuSeconds: 900, branches: 8, rounds: 3 } });
    writeFileSync(small, JSON.stringify(config));
    const org = await db.organization.create({ data: { name: "cli-calibrate", slug: `cli-calibrate-${process.pid}` } });
    const { runId } = await createRun(db, config, { organizationId: org.id }, { configPath: small });
    expect(await gateCalibrationForRun(db, runId)).toEqual({ calibrated: false, configHash: contentHash(config), configPath: small, control: "sibling" });

    // --run checks the config, not only the domain.
    const other = cli("calibrate", "examples/gym-math.yaml", "--runs", "1", "--run", runId);
    expect(other.status).not.toBe(0);
    expect(other.stderr).toMatch(new RegExp(`--run ${runId} was not created from examples/gym-math.yaml as it reads now`));

    const out = cli("calibrate", small, "--runs", "2", "--power-runs", "1", "--seed", "3", "--run", runId, "--json");
    expect(out.status, out.stderr).toBe(0);
    const printed = JSON.parse(out.stdout) as { id: string; runId: string; configHash: string; falsePromotion: { k: number; n: number }; power: { arm: string; n: number }[]; gateParameters: Record<string, unknown> };
    expect(printed.runId).toBe(runId);
    expect(printed.configHash).toBe(contentHash(config));
    // The interval counts runs, the independent unit.
    expect(printed.falsePromotion.n).toBe(2);
    expect(printed.power.map((p) => [p.arm, p.n])).toEqual([["dynamic sampling", 1], ["curriculum (pass rate 0.1–0.9)", 1]]);
    expect(printed.gateParameters).toMatchObject({ control: "sibling", rounds: 3, candidates: 2, replicates: 2, newParentReplicates: 3, steps: 6, baseHacks: false });

    const shown = await gateCalibrationForRun(db, runId);
    expect(shown).toMatchObject({ calibrated: true, attached: true, record: { id: printed.id, trials: 2 } });

    // A run of the same domain under another config is not calibrated by it.
    const noControl = runConfigSchema.parse({ ...config, search: { ...config.search, control: "none", acceptUnboundedFalsePromotions: true } });
    const { runId: otherRun } = await createRun(db, noControl, { organizationId: org.id });
    expect(await gateCalibrationForRun(db, otherRun)).toMatchObject({ calibrated: false, configPath: null, control: "none" });
  }, 300_000);

  it("refuses a config outside the gym domains, naming them, and stores nothing", async () => {
    const custom = join(dir, "custom.yaml");
    writeFileSync(custom, readFileSync("examples/gym-math.yaml", "utf8").replace(/^domain: math$/m, "domain: custom"));
    const before = await db.gateCalibration.count();
    const out = cli("calibrate", custom, "--runs", "2");
    expect(out.status).not.toBe(0);
    expect(out.stderr).toMatch(/gym, whose domains are math, code, swe; this config's domain is "custom"/);
    expect(await db.gateCalibration.count()).toBe(before);
  }, 60_000);

  it("says how to call it when --runs is missing or not a count", () => {
    expect(cli("calibrate", "examples/gym-math.yaml").stderr).toMatch(/usage: evotrainer calibrate <config.yaml> --runs N/);
    expect(cli("calibrate", "examples/gym-math.yaml", "--runs", "zero").stderr).toMatch(/--runs must be a whole number ≥ 1, got "zero"/);
  }, 180_000);
});
