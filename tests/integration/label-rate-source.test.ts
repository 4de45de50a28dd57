import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import { appRouter, createCallerFactory, createContext, createLocalUser } from "@evotrainer/api";
import { compileHarness, FINAL_TRAIN_STEPS, healthReport, runConfigSchema } from "@evotrainer/core";
import { buildRunReport, createDatabase, createRun, loadHarnessVersion, loadLastTrainSteps } from "@evotrainer/db";
import { trainGymBranch } from "@evotrainer/gym";
import { createProducerConnection, Producer } from "@evotrainer/queue";
import { readRunConfig } from "../../apps/cli/src/config-files.ts";
import { gateSide } from "../../apps/worker/src/loop/gate-side.ts";
import { testPrefix } from "../support/redis-prefix.ts";
import { CLI } from "../support/cli.ts";

const databaseUrl = inject("databaseUrl");
const db = createDatabase(databaseUrl);
const connection = createProducerConnection(inject("redisUrl"));
const producer = new Producer(connection, testPrefix());
const dir = mkdtempSync(join(tmpdir(), "evo-label-rates-"));

describe("one source for a branch's label rates", () => {
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    await producer.close();
    connection.disconnect();
    await db.$disconnect();
  });

  it("the diagnosis and backtest report, the verdict's side, the run report and the dashboard give one branch the same rates", async () => {
    // A hacking swe base (the naive reward) trained on the gym, so test_tampering fires on part of its rollouts.
    const config = runConfigSchema.parse({ ...readRunConfig("examples/gym-swe.yaml"), name: "label-rate-source", search: { ...readRunConfig("examples/gym-swe.yaml").search, stepsPerBranch: 8 } });
    const org = await db.organization.create({ data: { name: "label-rate-source", slug: `label-rate-source-${process.pid}` } });
    const { runId, baseBranchId } = await createRun(db, config, { organizationId: org.id });
    const trained = trainGymBranch({ config, runId, branchId: baseBranchId, version: 0, recipe: config.recipe, adapter: { tasksPerStep: 8, miniBatches: 2 } });
    const file = join(dir, "train.jsonl");
    writeFileSync(file, trained.train.map((r) => JSON.stringify(r)).join("\n") + "\n");
    const ingested = spawnSync(process.execPath, [CLI, "ingest", file, "--branch", baseBranchId], { env: { ...process.env, DATABASE_URL: databaseUrl }, encoding: "utf8" });
    expect(ingested.status, ingested.stderr).toBe(0);

    // The rates differ between the window's steps, so a reader with another window reads other numbers.
    const steps = new Set(trained.train.map((r) => r.step));
    expect(steps.size).toBe(FINAL_TRAIN_STEPS);

    const run = await db.run.findUniqueOrThrow({ where: { id: runId } });
    const compiled = compileHarness((await loadHarnessVersion(db, run.harnessVersionId!)).definition);
    if (!compiled.ok) throw new Error("the run's harness does not compile");
    // Diagnosis (the hypothesis's evidence) and the backtest read the parent's health report built like this (propose.ts).
    const window = await loadLastTrainSteps(db, baseBranchId, FINAL_TRAIN_STEPS);
    const diagnosis = healthReport(compiled.harness, window.rollouts, window.labels).metrics.label_rate;
    const verdictSide = (await gateSide({ db }, compiled.harness, baseBranchId)).report.metrics.label_rate;
    const report = (await buildRunReport(db, runId)).branches.find((b) => b.id === baseBranchId)!.labels;
    const email = `label-rates-${process.pid}@example.test`;
    const user = await createLocalUser(db, { email, name: "Label rates viewer", password: "a long enough password 1", organizationId: org.id, role: "viewer" });
    const api = createCallerFactory(appRouter)(createContext({ db, headers: new Headers(), sessionUserId: async () => user.id, producer: () => producer }));
    // The compare view (the dashboard's label-rate table) asks for two or more branches; the same one twice is one.
    const compared = await api.compare.branches({ runId, branchIds: [baseBranchId, baseBranchId] });
    const dashboard = Object.fromEntries(compared.labelRates.filter((l) => l.branchId === baseBranchId).map((l) => [l.label, l.rate]));

    expect(diagnosis.test_tampering).toBeGreaterThan(0);
    const nonZero = (rates: Record<string, number>) => Object.fromEntries(Object.entries(rates).filter(([, r]) => r > 0));
    expect(nonZero(verdictSide)).toEqual(nonZero(diagnosis));
    expect(nonZero(report)).toEqual(nonZero(diagnosis));
    expect(nonZero(dashboard)).toEqual(nonZero(diagnosis));
  }, 300_000);
});
