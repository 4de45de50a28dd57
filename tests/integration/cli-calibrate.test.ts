import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import { runConfigSchema } from "@evotrainer/core";
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

  it("trains null and real interventions on the gym, judges them with the gate, and stores the result on the run", async () => {
    const config = runConfigSchema.parse({ ...readRunConfig("examples/gym-math.yaml"), name: "cli-calibrate" });
    const org = await db.organization.create({ data: { name: "cli-calibrate", slug: `cli-calibrate-${process.pid}` } });
    const { runId } = await createRun(db, config, { organizationId: org.id });

    const out = cli("calibrate", "examples/gym-math.yaml", "--trials", "2", "--seed", "3", "--steps", "8", "--tasks-per-step", "8", "--run", runId, "--json");
    expect(out.status, out.stderr).toBe(0);
    const printed = JSON.parse(out.stdout) as { id: string; runId: string; falsePromotion: { k: number; n: number }; power: { arm: string; n: number }[] };
    expect(printed.runId).toBe(runId);
    // Two null kinds of two candidates each per trial, plus the recipe-again sibling beside each real arm.
    expect(printed.falsePromotion.n).toBe(2 * 2 + 2 * 2);
    expect(printed.power.map((p) => [p.arm, p.n])).toEqual([["dynamic sampling", 2], ["curriculum (pass rate 0.1–0.9)", 2]]);

    const shown = await gateCalibrationForRun(db, runId);
    expect(shown?.attached).toBe(true);
    expect(shown?.record.id).toBe(printed.id);
    expect(shown?.record.trials).toBe(2);
    expect(shown?.record.falsePromotion.k).toBe(printed.falsePromotion.k);
    expect(shown?.record.gateParameters.alpha).toBeCloseTo(1 - config.gate.confidence);
  }, 300_000);

  it("refuses a config outside the gym domains, naming them, and stores nothing", async () => {
    const custom = join(dir, "custom.yaml");
    writeFileSync(custom, readFileSync("examples/gym-math.yaml", "utf8").replace(/^domain: math$/m, "domain: custom"));
    const before = await db.gateCalibration.count();
    const out = cli("calibrate", custom, "--trials", "2");
    expect(out.status).not.toBe(0);
    expect(out.stderr).toMatch(/gym, whose domains are math, code, swe; this config's domain is "custom"/);
    expect(await db.gateCalibration.count()).toBe(before);
  }, 60_000);

  it("says how to call it when --trials is missing or not a count", () => {
    expect(cli("calibrate", "examples/gym-math.yaml").stderr).toMatch(/usage: evotrainer calibrate <config.yaml> --trials N/);
    expect(cli("calibrate", "examples/gym-math.yaml", "--trials", "zero").stderr).toMatch(/--trials must be a whole number ≥ 1, got "zero"/);
  }, 60_000);
});
