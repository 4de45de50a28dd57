import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { gunzipSync } from "node:zlib";
import { afterAll, describe, expect, inject, it } from "vitest";
import { createDatabase } from "@evotrainer/db";
import { runCli } from "../support/cli.ts";

const databaseUrl = inject("databaseUrl");
const db = createDatabase(databaseUrl);
const dir = mkdtempSync(join(tmpdir(), "evo-cli-reimport-"));
// mini-swe-agent's published layout: two real trajectories and their bare logs/<id>/report.json (one resolved).
const LAYOUT = resolve("tests/fixtures/real/mini-swe-agent-layout");

async function importAgent(...args: string[]) {
  const result = await runCli(["import", "mini-swe-agent", ...args], { DATABASE_URL: databaseUrl });
  expect(result.code, result.stderr).toBe(0);
  return result;
}
const importJson = async (...args: string[]) => JSON.parse((await importAgent(...args, "--json")).stdout) as { branchId: string; rollouts: Record<string, number> };

describe("evotrainer import again with --report: the results reach the rollouts stored before", () => {
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    await db.$disconnect();
  });

  it("writes the joined results onto the stored rows and the step's figures, says how many changed, and changes none the second time or without results", async () => {
    // The trajectories alone, as a run's output is often copied before its evaluation is done.
    const trajs = join(dir, "run", "trajs");
    cpSync(join(LAYOUT, "trajs"), trajs, { recursive: true });
    const first = await importJson(trajs);
    expect(first.rollouts).toMatchObject({ added: 2, withResult: 0 });
    const { branchId } = first;
    const stored = async () =>
      (await db.rollout.findMany({ where: { branchId }, orderBy: { taskId: "asc" } })).map((r) => ({
        task: r.taskId, reward: r.reward, resolved: (r.extra as Record<string, unknown>)["resolved"], tests: r.testResults,
      }));
    const rewardMean = async () => (await db.metricPoint.findUnique({ where: { branchId_name_step: { branchId, name: "train/reward_mean", step: 0 } } }))?.value ?? null;
    const rewarded = async () => (await db.stepStat.findUniqueOrThrow({ where: { branchId_split_step: { branchId, split: "train", step: 0 } } })).rewarded;
    // Imported without results: unknown, not failed, and no reward_mean to average them into.
    expect((await stored()).map((r) => r.reward)).toEqual([null, null]);
    expect(await rewardMean()).toBeNull();
    expect(await rewarded()).toBe(0);

    // The evaluation's logs, joined on a second import of the same trajectories.
    const joined = await importAgent(trajs, "--report", join(LAYOUT, "logs"));
    expect(await stored()).toEqual([
      { task: "django__django-10999", reward: 0, resolved: false, tests: expect.objectContaining({ status: "unresolved" }) },
      { task: "sympy__sympy-16886", reward: 1, resolved: true, tests: { passed: 43, total: 43, status: "resolved" } },
    ]);
    const step = await db.stepStat.findUniqueOrThrow({ where: { branchId_split_step: { branchId, split: "train", step: 0 } } });
    expect(Number(step.rewardSum)).toBe(1);
    expect(await rewarded()).toBe(2);
    expect(await rewardMean()).toBe(0.5);
    expect(joined.stdout).toContain("import mini-swe-agent: 0 rollouts added, 2 already present (2 of their stored results changed), 0 quarantined; 1 of 2 with a result resolved");

    // The same command again reads nothing new and changes nothing.
    expect((await importJson(trajs, "--report", join(LAYOUT, "logs"))).rollouts).toMatchObject({ added: 0, resultsChanged: 0 });
    expect(await rewardMean()).toBe(0.5);

    // A corrected summary: the results it gives replace the stored ones.
    const corrected = join(dir, "results.json");
    writeFileSync(corrected, JSON.stringify({ resolved_ids: ["django__django-10999"], unresolved_ids: ["sympy__sympy-16886"] }));
    expect((await importJson(trajs, "--report", corrected)).rollouts).toMatchObject({ added: 0, alreadyPresent: 2, resultsChanged: 2, resolved: 1, withResult: 2 });
    expect((await stored()).map((r) => [r.task, r.reward, r.resolved])).toEqual([["django__django-10999", 1, true], ["sympy__sympy-16886", 0, false]]);
    expect(await rewardMean()).toBe(0.5);

    // Imported again with no results: the stored ones stay.
    expect((await importJson(trajs)).rollouts).toMatchObject({ added: 0, alreadyPresent: 2, resultsChanged: 0, withResult: 0 });
    expect((await stored()).map((r) => [r.task, r.reward, r.resolved])).toEqual([["django__django-10999", 1, true], ["sympy__sympy-16886", 0, false]]);
    expect(await db.rollout.count({ where: { branchId } })).toBe(2);
  }, 300_000);

  it("reads a file again when its results changed though its text kept its length: two results swapped in a JSONL of trajectories", async () => {
    const lines = gunzipSync(readFileSync(resolve("tests/fixtures/real/mini-swe-agent-gemini-3-pro-dev150.jsonl.gz"))).toString("utf8").split("\n").slice(0, 3)
      .map((line) => JSON.parse(line) as { instance_id: string; traj: unknown });
    const [first, second, third] = lines.map((l) => l.instance_id) as [string, string, string];
    const file = join(dir, "three.jsonl");
    writeFileSync(file, lines.map(({ instance_id, traj }) => `${JSON.stringify({ instance_id, traj })}\n`).join(""));
    const report = (resolved: string, unresolved: string[]) => {
      const path = join(dir, `results-${resolved}.json`);
      writeFileSync(path, JSON.stringify({ resolved_ids: [resolved], unresolved_ids: unresolved }));
      return path;
    };
    const imported = await importJson(file, "--report", report(second, [first, third]));
    expect(imported.rollouts).toMatchObject({ added: 3, resolved: 1 });
    // The second and third swap: each line's text changes, the file's length and first bytes do not.
    const swapped = await importJson(file, "--report", report(third, [first, second]));
    expect(swapped.rollouts).toMatchObject({ added: 0, alreadyPresent: 3, resultsChanged: 2 });
    const rewards = await db.rollout.findMany({ where: { branchId: imported.branchId }, select: { taskId: true, reward: true } });
    expect(new Map(rewards.map((r) => [r.taskId, r.reward]))).toEqual(new Map([[first, 0], [second, 0], [third, 1]]));
  }, 300_000);

  it("an import that stores nothing creates nothing and says why, whatever results lay beside it", async () => {
    // mini-swe-agent's layout, its trajectories of a shape no reader knows, its reports readable.
    const broken = join(dir, "broken");
    cpSync(join(LAYOUT, "logs"), join(broken, "logs"), { recursive: true });
    for (const id of ["django__django-10999", "sympy__sympy-16886"]) {
      mkdirSync(join(broken, "trajs", id), { recursive: true });
      writeFileSync(join(broken, "trajs", id, `${id}.traj.json`), JSON.stringify({ steps: [] }));
    }
    const runs = await db.run.count();
    const branches = await db.branch.count();
    const empty = await runCli(["import", "mini-swe-agent", broken], { DATABASE_URL: databaseUrl });
    expect(empty.code).toBe(1);
    expect(await db.run.count()).toBe(runs);
    expect(await db.branch.count()).toBe(branches);
    // Why, once: no summary of results that joined nothing.
    expect(empty.stdout).toBe("");
    expect(empty.stderr).toContain("import mini-swe-agent: nothing was stored; every line was quarantined:");
    expect(empty.stderr).toMatch(/django__django-10999\.traj\.json:1: mini-swe-agent: /);
    expect(empty.stderr).toContain("import mini-swe-agent: so no run or branch was created in this machine's database");
    expect(empty.stderr).not.toMatch(/no SWE-bench results joined|results from /);

    // Results that name none of the trajectories read: said as such, with the file they came from.
    const others = join(dir, "other-results.json");
    writeFileSync(others, JSON.stringify({ resolved_ids: ["astropy__astropy-12907"] }));
    const unmatched = await importAgent(join(LAYOUT, "trajs"), "--report", others);
    expect(unmatched.stdout).toContain("2 rollouts added, 0 already present, 0 quarantined; none of these trajectories' instances is in the results read");
    expect(unmatched.stdout).toContain(`results from ${others}`);
    expect(unmatched.stdout).not.toContain("no SWE-bench results joined");
  }, 300_000);
});
