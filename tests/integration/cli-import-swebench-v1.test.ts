import { resolve } from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import { createDatabase } from "@evotrainer/db";
import { runCli } from "../support/cli.ts";

const databaseUrl = inject("databaseUrl");
const db = createDatabase(databaseUrl);
const RUN = resolve("tests/fixtures/real-swebench-v1/coder-lite");

async function importJson(...args: string[]) {
  const result = await runCli(["import", ...args, "--json"], { DATABASE_URL: databaseUrl });
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as Record<string, any>;
}

// Each log's own verdict, read by hand from its status lines (tests/fixtures/real-swebench-v1/README.md).
const VERDICTS: Record<string, { reward: number; status: string; applied: boolean }> = {
  "django__django-11099": { reward: 1, status: "all_tests_passed", applied: true },
  "django__django-15061": { reward: 0, status: "some_tests_failed", applied: true },
  "django__django-15814": { reward: 1, status: "all_tests_passed", applied: true },
  "pytest-dev__pytest-5227": { reward: 1, status: "all_tests_passed", applied: true },
  "sphinx-doc__sphinx-8506": { reward: 0, status: "patch_apply_failed", applied: false },
  "sympy__sympy-14774": { reward: 0, status: "some_tests_failed", applied: true },
  "sympy__sympy-18621": { reward: 0, status: "some_tests_failed", applied: true },
};

describe("evotrainer import of a run whose results are SWE-bench v1 logs", () => {
  afterAll(async () => {
    await db.$disconnect();
  });

  it("imports CodeR's published run (SWE-agent trajs/ beside the v1 harness's logs/) with each log's verdict joined, no flags", async () => {
    const report = await importJson(RUN);
    // Eight logs, seven trajectories: the run, like CodeR's whole one, has a log without its trajectory.
    expect(report).toMatchObject({ format: "swe-agent", files: 7, rollouts: { added: 7, quarantined: 0, resolved: 3, withResult: 7 } });
    expect(report.reports).toHaveLength(8);
    const rows = await db.rollout.findMany({ where: { branchId: report.branchId }, orderBy: { taskId: "asc" } });
    expect(Object.fromEntries(rows.map((r) => [r.taskId, { reward: r.reward, status: (r.extra as any).report.status, applied: (r.extra as any).report.patch_successfully_applied }]))).toEqual(VERDICTS);
    for (const row of rows) {
      expect(row.extra, row.taskId).toMatchObject({ resolved: VERDICTS[row.taskId]!.reward === 1, report: { evaluation_model: expect.stringMatching(/^gpt4__swe_lite_planner/), verdict_from: "v1 log status line" } });
    }
  }, 180_000);

  it("takes the harness's own verdicts from the run's v1 summary with --report results.json (trailing comma and all)", async () => {
    const report = await importJson("swe-agent", resolve(RUN, "trajs"), "--report", resolve(RUN, "results.json"));
    // The summary counts sympy__sympy-14774 resolved: the tests that failed in its log are outside
    // FAIL_TO_PASS / PASS_TO_PASS, which the log alone cannot tell.
    expect(report).toMatchObject({ rollouts: { added: 7, resolved: 4, withResult: 7 }, reports: [resolve(RUN, "results.json")] });
    const rows = await db.rollout.findMany({ where: { branchId: report.branchId }, orderBy: { taskId: "asc" } });
    expect(rows.map((r) => [r.taskId, r.reward, (r.extra as any).report.status])).toEqual([
      ["django__django-11099", 1, "resolved"],
      ["django__django-15061", 0, "applied"],
      ["django__django-15814", 1, "resolved"],
      ["pytest-dev__pytest-5227", 1, "resolved"],
      ["sphinx-doc__sphinx-8506", 0, "with_logs"],
      ["sympy__sympy-14774", 1, "resolved"],
      ["sympy__sympy-18621", 0, "applied"],
    ]);
  }, 120_000);

  it("import --help names the v1 logs among the layouts it reads", async () => {
    const help = await runCli(["import", "--help"], { DATABASE_URL: databaseUrl });
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("trajs/<id>.traj beside SWE-bench v1's logs/<id>.<model>.eval.log");
  }, 120_000);

  it("joins a single trajectory's log from its run's logs/ folder", async () => {
    const report = await importJson("swe-agent", resolve(RUN, "trajs/django__django-15814.traj"));
    expect(report).toMatchObject({ files: 1, rollouts: { added: 1, resolved: 1, withResult: 1 }, reports: [resolve(RUN, "logs/django__django-15814.20240604_CodeR.eval.log")] });
    const row = await db.rollout.findFirstOrThrow({ where: { branchId: report.branchId } });
    expect(row).toMatchObject({ taskId: "django__django-15814", reward: 1, extra: expect.objectContaining({ report: expect.objectContaining({ patch_applied_as: "pred_minimal" }) }) });
  }, 120_000);
});
