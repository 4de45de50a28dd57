import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import { createDatabase, type RunReport } from "@evotrainer/db";
import { createTestDatabase } from "@evotrainer/db/testing";
import { RuleBasedProposer } from "@evotrainer/proposers";
import { loadWorkerEnv } from "../../apps/worker/src/env.ts";
import { startWorkerApp } from "../../apps/worker/src/worker-app.ts";
import { runCli } from "../support/cli.ts";
import { deleteKeys, testPrefix } from "../support/redis-prefix.ts";

// A database of its own, as every file that starts a worker has: see worker-isolation.test.ts.
const database = await createTestDatabase(inject("databaseUrl"));
const databaseUrl = database.url;
const redisUrl = inject("redisUrl");
const prefix = testPrefix();
const jobsDir = mkdtempSync(join(tmpdir(), "evo-gym-run-"));

const cli = (args: string[]) => runCli(args, { DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, EVO_QUEUE_PREFIX: prefix });

describe("a complete run of the loop on the gym (real Postgres, Redis, BullMQ, child-process trainer)", () => {
  afterAll(async () => {
    await deleteKeys(redisUrl, `${prefix}:*`);
    await database.drop();
    rmSync(jobsDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  });

  it("`evotrainer run examples/gym-swe.yaml --wait --json` finishes with control arms, a promoted tampering fix, a blocked hack, skills, backtests, evidence-bound harness evolution and a sealed score", async () => {
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
        .map((b) => `v${b.version} ${b.status} ${b.kind === "control" ? "control" : (b.factor ?? "base")} score=${b.promotionScore?.toFixed(3)} reward=${b.trainReward?.toFixed(3)} ${(b.verdict?.checks ?? []).filter((c) => !c.passed).map((c) => `FAIL ${c.name}: ${c.detail}`).join("; ")}`)
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

    // Each round trained controls (the parent's recipe, from its checkpoint) beside its candidates:
    // three in a parent's first round (its seed noise is measured per parent), two after that; their
    // GPU time counts against the budget and is shown apart.
    const candidates = report.branches.filter((b) => b.parentId && b.kind === "candidate");
    const controls = report.branches.filter((b) => b.kind === "control");
    for (const round of new Set(candidates.map((b) => b.round))) {
      const parentId = candidates.find((b) => b.round === round)!.parentId;
      const earlier = controls.some((c) => c.parentId === parentId && c.round < round);
      expect(controls.filter((c) => c.round === round).length, `round ${round}`).toBe(earlier ? 2 : 3);
    }
    for (const c of controls) expect(c.verdict, `control v${c.version}`).toBeNull();
    expect(report.budget.gpuSeconds.controls).toBeGreaterThan(0);
    expect(report.budget.gpuSeconds.controls).toBeCloseTo(controls.reduce((s, c) => s + c.gpuSeconds, 0), 6);

    // Every dispatched intervention was backtested first and judged against its round's controls.
    for (const b of candidates) {
      expect(b.backtest, `v${b.version}`).not.toBeNull();
      const vsControl = b.verdict?.checks.find((c) => c.name === "main_score_vs_control");
      expect(vsControl, `v${b.version}`).toBeDefined();
      // The backtest's prediction sits next to what training realised: the verdict's targeted-metric move.
      const moved = b.verdict?.checks.find((c) => c.name === "targeted_metric")?.value;
      if (typeof moved === "number") expect(b.backtest!.realisedEffect, `v${b.version}`).toBe(moved);
    }
    expect(candidates.some((b) => typeof b.backtest?.realisedEffect === "number")).toBe(true);
    // The tampering is fixed at its cause, the environment (read-only tests), and promoted: it beats
    // the controls, which go on hacking. The backtest predicts the env fix (the exploit stops paying)
    // and the dead groups it exposes are the controls' too, so neither keeps it out.
    const fix = candidates.find((b) => b.status === "promoted" && b.factor === "env.readOnlyTests");
    expect(fix, "the read-only-tests fix promoted").toBeDefined();
    expect(fix!.verdict!.checks.find((c) => c.name === "no_new_crit")!.passed).toBe(true);
    expect(fix!.verdict!.checks.find((c) => c.name === "main_score_vs_control")!.passed).toBe(true);
    const roundControls = controls.filter((c) => c.round === fix!.round && c.parentId === fix!.parentId);
    for (const c of roundControls) expect(fix!.promotionScore!).toBeGreaterThan(c.promotionScore! + 0.3);
    expect(report.branches.some((b) => b.status === "promoted" && b.parentId && (b.verdict?.ci[0] ?? 0) > 0)).toBe(true);

    expect(report.skills.length).toBeGreaterThanOrEqual(1);
    expect(report.sealed?.score).toBeGreaterThan(base.promotionScore ?? 0);

    // The harness check ran when failures went unexplained; it registers a detector only on evidence
    // that passes every admission rule, and none it registers fires on 90% of a later branch's rollouts.
    const db = createDatabase(databaseUrl);
    try {
      const checks = await db.event.findMany({ where: { runId: report.runId, type: "harness_check" } });
      expect(checks.length).toBeGreaterThan(0);
      for (const e of checks) {
        const payload = e.payload as { candidates: { detector: string; accepted: boolean; refusedBy: string[]; reasons: string[] }[] };
        for (const c of payload.candidates.filter((x) => !x.accepted)) expect(c.refusedBy.length, c.detector).toBeGreaterThan(0);
        // A math final-answer rule is never even a candidate for swe.
        expect(payload.candidates.map((c) => c.detector)).not.toContain("swe.format_error");
      }
      const versions = await db.harnessVersion.findMany({ where: { runId: report.runId }, orderBy: { version: "asc" } });
      console.log(`harness versions: ${versions.map((v) => `v${v.version}`).join(", ")}`);
      for (const v of versions.slice(1)) {
        const added = (v.evidence as { added: { label: string }[] }).added;
        const registeredAt = (await db.event.findFirstOrThrow({ where: { runId: report.runId, type: "harness_version", createdAt: { gte: v.createdAt } }, orderBy: { createdAt: "asc" } })).createdAt;
        const later = await db.branch.findMany({ where: { runId: report.runId, createdAt: { gt: registeredAt } }, select: { version: true } });
        for (const { label } of added) {
          for (const b of report.branches.filter((x) => later.some((l) => l.version === x.version))) {
            expect(b.labels[label] ?? 0, `${label} on v${b.version}`).toBeLessThan(0.9);
          }
        }
      }
      expect((await db.run.findUniqueOrThrow({ where: { id: report.runId } })).harnessVersionId).toBe(versions.at(-1)!.id);
    } finally {
      await db.$disconnect();
    }
  }, 600_000);
});
