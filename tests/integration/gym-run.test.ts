import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import { createDatabase, type RunReport } from "@evotrainer/db";
import { RuleBasedProposer } from "@evotrainer/proposers";
import { loadWorkerEnv } from "../../apps/worker/src/env.ts";
import { startWorkerApp } from "../../apps/worker/src/worker-app.ts";
import { runCli } from "../support/cli.ts";
import { deleteKeys, testPrefix } from "../support/redis-prefix.ts";

const databaseUrl = inject("databaseUrl");
const redisUrl = inject("redisUrl");
const prefix = testPrefix();
const jobsDir = mkdtempSync(join(tmpdir(), "evo-gym-run-"));

const cli = (args: string[]) => runCli(args, { DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, EVO_QUEUE_PREFIX: prefix });

describe("a complete run of the loop on the gym (real Postgres, Redis, BullMQ, child-process trainer)", () => {
  afterAll(async () => {
    await deleteKeys(redisUrl, `${prefix}:*`);
    rmSync(jobsDir, { recursive: true, force: true });
  });

  it("`evotrainer run examples/gym-swe.yaml --wait --json` finishes with promotions, a blocked hack, skills, backtests and a sealed score", async () => {
    const env = loadWorkerEnv({ DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, EVO_QUEUE_PREFIX: prefix, EVO_JOBS_DIR: jobsDir, EVO_MONITOR_EVERY_MS: "300", EVO_RECONCILE_EVERY_MS: "5000" });
    const worker = await startWorkerApp(env, (lockedEvaluation) => new RuleBasedProposer({ lockedEvaluation }), () => {});
    let result: Awaited<ReturnType<typeof cli>>;
    try {
      result = await cli(["run", "examples/gym-swe.yaml", "--wait", "--json"]);
    } finally {
      await worker.shutdown();
    }
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as RunReport;
    console.log(
      report.branches
        .map((b) => `v${b.version} ${b.status} ${b.factor ?? "base"} score=${b.promotionScore?.toFixed(3)} reward=${b.trainReward?.toFixed(3)} ${(b.verdict?.checks ?? []).filter((c) => !c.passed).map((c) => `FAIL ${c.name}: ${c.detail}`).join("; ")}`)
        .join("\n"),
      `\nskills: ${report.skills.map((s) => s.name).join("; ")}\nsealed: ${report.sealed?.score}`,
    );

    expect(report.status).toBe("completed");
    expect(report.branches.length).toBeGreaterThanOrEqual(6);
    expect(report.branches.filter((b) => b.status === "promoted").length).toBeGreaterThanOrEqual(1);

    // The base recipe's naive reward is hacked: the validity check names the label that blocks it.
    const base = report.branches.find((b) => b.version === 0)!;
    expect(base.status).toBe("rejected");
    expect(base.verdict?.checks.some((c) => c.name === "validity_limit" && !c.passed && c.detail.startsWith("test_tampering"))).toBe(true);
    expect(base.labels.test_tampering).toBeGreaterThan(0.5);

    // Every dispatched intervention was backtested first; some promotion beat its parent with an interval above zero.
    for (const b of report.branches.filter((x) => x.parentId)) expect(b.backtest, `v${b.version}`).not.toBeNull();
    expect(report.branches.some((b) => b.status === "promoted" && b.parentId && (b.verdict?.ci[0] ?? 0) > 0)).toBe(true);

    expect(report.skills.length).toBeGreaterThanOrEqual(1);
    expect(report.sealed?.score).toBeGreaterThan(base.promotionScore ?? 0);

    // The harness check found failures no detector explained and registered a detector that separates
    // rejected from promoted branches, with the replay's evidence.
    const db = createDatabase(databaseUrl);
    try {
      const versions = await db.harnessVersion.findMany({ where: { runId: report.runId }, orderBy: { version: "asc" }, include: { detectors: { include: { detector: true } } } });
      console.log(`harness versions: ${versions.map((v) => `v${v.version} (${v.detectors.length} detectors)`).join(", ")}`);
      expect(versions.length).toBeGreaterThanOrEqual(2);
      const evolved = versions[1]!;
      expect(evolved.detectors.length).toBeGreaterThan(versions[0]!.detectors.length);
      expect(evolved.evidence).toMatchObject({ added: expect.arrayContaining([expect.objectContaining({ evidence: expect.objectContaining({ separation: expect.objectContaining({ auc: expect.any(Number) }) }) })]) });
      expect((await db.run.findUniqueOrThrow({ where: { id: report.runId } })).harnessVersionId).toBe(versions.at(-1)!.id);
    } finally {
      await db.$disconnect();
    }
  }, 600_000);
});
