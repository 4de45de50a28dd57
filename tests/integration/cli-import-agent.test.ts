import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { gunzipSync } from "node:zlib";
import { afterAll, describe, expect, inject, it } from "vitest";
import { createDatabase } from "@evotrainer/db";
import { runCli } from "../support/cli.ts";

const databaseUrl = inject("databaseUrl");
const db = createDatabase(databaseUrl);
const dir = mkdtempSync(join(tmpdir(), "evo-cli-import-agent-"));
const REAL = resolve("tests/fixtures/real");

async function importJson(...args: string[]) {
  const result = await runCli(["import", ...args, "--json"], { DATABASE_URL: databaseUrl });
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as Record<string, any>;
}

describe("evotrainer import of agent trajectories", () => {
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    await db.$disconnect();
  });

  it("imports the 150 real mini-swe-agent trajectories with SWE-bench's resolved joined, and nothing twice", async () => {
    const file = join(REAL, "mini-swe-agent-gemini-3-pro-dev150.jsonl.gz");
    const report = await importJson("mini-swe-agent", file);
    expect(report).toMatchObject({ format: "mini-swe-agent", files: 1, created: true, rollouts: { added: 150, alreadyPresent: 0, quarantined: 0, resolved: 114, withResult: 150 } });
    const { branchId, runId } = report as { branchId: string; runId: string };
    const run = await db.run.findUniqueOrThrow({ where: { id: runId } });
    expect(run).toMatchObject({ name: "mini-swe-agent mini-swe-agent-gemini-3-pro-dev150.jsonl.gz", domain: "swe" });
    expect(await db.rollout.count({ where: { branchId, reward: 1 } })).toBe(114);
    const one = await db.rollout.findFirstOrThrow({ where: { branchId, taskId: "astropy__astropy-14096" } });
    expect(one).toMatchObject({ reward: 1, finishReason: "Submitted", truncated: false });
    expect(one.extra).toMatchObject({ resolved: true, format: "mini-swe-agent-1", patch: expect.stringContaining("diff --git a/astropy/coordinates/sky_coordinate.py") });

    const again = await importJson("mini-swe-agent", file);
    expect(again).toMatchObject({ runId, branchId, created: false, rollouts: { added: 0, quarantined: 0 } });
    expect(await db.rollout.count({ where: { branchId } })).toBe(150);
  }, 180_000);

  it("names each trajectory by its task and content: inserting, reordering, concatenating and rewriting files never imports one twice", async () => {
    const [a, b, c, d] = gunzipSync(readFileSync(join(REAL, "mini-swe-agent-gemini-3-pro-dev150.jsonl.gz"))).toString("utf8").split("\n").slice(0, 4) as [string, string, string, string];
    const trajs = join(dir, "uids");
    mkdirSync(trajs);
    const layout = (files: Record<string, string[]>) => {
      rmSync(trajs, { recursive: true, force: true });
      mkdirSync(trajs);
      for (const [name, lines] of Object.entries(files)) writeFileSync(join(trajs, name), `${lines.join("\n")}\n`);
    };
    layout({ "run.jsonl": [a, b, c] });
    const first = await importJson("mini-swe-agent", trajs);
    expect(first.rollouts).toMatchObject({ added: 3, alreadyPresent: 0 });
    const branchId = first.branchId as string;
    const uids = async () => (await db.rollout.findMany({ where: { branchId }, select: { uid: true } })).map((r) => r.uid).sort();
    const before = await uids();

    // One more trajectory at the top moves every line down: only that one is new.
    layout({ "run.jsonl": [d, a, b, c] });
    expect((await importJson("mini-swe-agent", trajs)).rollouts).toMatchObject({ added: 1, alreadyPresent: 3 });
    const all = await uids();
    expect(all).toEqual(expect.arrayContaining(before));
    expect(all).toHaveLength(4);

    layout({ "run.jsonl": [c, a, d, b] });
    expect((await importJson("mini-swe-agent", trajs)).rollouts).toMatchObject({ added: 0, alreadyPresent: 4 });
    layout({ "first.jsonl": [a, b], "second.jsonl": [c, d] });
    expect((await importJson("mini-swe-agent", trajs)).rollouts).toMatchObject({ added: 0, alreadyPresent: 4 });
    layout({ "both.jsonl": [a, b, c, d] });
    expect((await importJson("mini-swe-agent", trajs)).rollouts).toMatchObject({ added: 0, alreadyPresent: 4 });
    // Rewritten by another tool: the keys of each trajectory in another order.
    const rewrite = (line: string) => JSON.stringify(Object.fromEntries(Object.entries(JSON.parse(line) as object).reverse()));
    layout({ "rewritten.jsonl": [d, c, b, a].map(rewrite) });
    expect((await importJson("mini-swe-agent", trajs)).rollouts).toMatchObject({ added: 0, alreadyPresent: 4 });
    expect(await uids()).toEqual(all);
    expect(all.every((uid) => /^[\w.-]+__[\w.-]+@[0-9a-f]{16}$/.test(uid))).toBe(true);
  }, 300_000);

  it("joins the results of a run as mini-swe-agent and SWE-bench publish it, with no flags or with --report <directory>", async () => {
    const bundled = gunzipSync(readFileSync(join(REAL, "mini-swe-agent-gemini-3-pro-dev150.jsonl.gz"))).toString("utf8").split("\n").slice(0, 3)
      .map((line) => JSON.parse(line) as { instance_id: string; traj: unknown; report: { resolved: boolean } });
    const resolved = bundled.filter((b) => b.report.resolved).length;
    // mini-swe-agent's output directory: trajs/<id>/<id>.traj.json beside logs/<id>/report.json.
    const published = join(dir, "published");
    for (const { instance_id: id, traj, report } of bundled) {
      mkdirSync(join(published, "trajs", id), { recursive: true });
      mkdirSync(join(published, "logs", id), { recursive: true });
      writeFileSync(join(published, "trajs", id, `${id}.traj.json`), JSON.stringify(traj));
      writeFileSync(join(published, "logs", id, "report.json"), JSON.stringify({ [id]: report }));
    }
    const joined = await importJson("mini-swe-agent", published);
    expect(joined).toMatchObject({ files: 3, rollouts: { added: 3, quarantined: 0, resolved, withResult: 3 } });
    expect(await db.rollout.count({ where: { branchId: joined.branchId, reward: 1 } })).toBe(resolved);
    // One trajectory of that directory alone: its run's logs/<id>/report.json is joined, and named.
    const id = bundled[0]!.instance_id;
    const one = await importJson("mini-swe-agent", join(published, "trajs", id, `${id}.traj.json`));
    expect(one).toMatchObject({ files: 1, reports: [join(published, "logs", id, "report.json")], rollouts: { added: 1, withResult: 1 } });

    // SWE-bench's evaluation logs elsewhere: logs/run_evaluation/<run>/<model>/<id>/report.json.
    const evaluation = join(dir, "evaluation");
    for (const { instance_id: id, report } of bundled) {
      mkdirSync(join(evaluation, "logs/run_evaluation/run-1/gemini-3-pro", id), { recursive: true });
      writeFileSync(join(evaluation, "logs/run_evaluation/run-1/gemini-3-pro", id, "report.json"), JSON.stringify({ [id]: { ...report, resolved: true } }));
    }
    const fromDirectory = await importJson("mini-swe-agent", join(published, "trajs"), "--report", evaluation);
    expect(fromDirectory.rollouts).toMatchObject({ added: 3, resolved: 3, withResult: 3 });
  }, 300_000);

  it("imports mini-swe-agent's published layout as it is: trajs/<id>/<id>.traj.json with the bare logs/<id>/report.json, results joined by folder", async () => {
    const layout = join(REAL, "mini-swe-agent-layout");
    const report = await importJson("mini-swe-agent", layout);
    expect(report).toMatchObject({ files: 2, rollouts: { added: 2, quarantined: 0, resolved: 1, withResult: 2 } });
    const rows = await db.rollout.findMany({ where: { branchId: report.branchId }, orderBy: { taskId: "asc" } });
    expect(rows.map((r) => [r.taskId, r.reward])).toEqual([["django__django-10999", 0], ["sympy__sympy-16886", 1]]);
    expect(rows[0]!.extra).toMatchObject({ resolved: false, report: { patch_is_None: false, patch_successfully_applied: true } });
    expect(rows[1]!.testResults).toEqual({ passed: 43, total: 43, status: "resolved" });
  }, 300_000);

  it("import --help lists every format with the layouts it reads", async () => {
    const help = await runCli(["import", "--help"], { DATABASE_URL: databaseUrl });
    expect(help.code).toBe(0);
    for (const text of ["verl", "trl", "mini-swe-agent", "swe-agent", "openai-chat", "trajs/<id>/<id>.traj.json", "logs/run_evaluation/<run>/<model>/<id>/report.json", "--report <file or directory>"]) {
      expect(help.stdout).toContain(text);
    }
  }, 120_000);

  it("imports real SWE-agent .traj files from a directory, joins a report, and quarantines a file of unknown shape at its line", async () => {
    const trajs = join(dir, "swe-agent");
    mkdirSync(trajs);
    for (const name of ["pydicom__pydicom-1458", "marshmallow-code__marshmallow-1867"]) {
      writeFileSync(join(trajs, `${name}.traj`), readFileSync(join(REAL, "swe-agent", `${name}.traj`)));
    }
    writeFileSync(join(trajs, "broken.traj"), JSON.stringify({ steps: [] }));
    const reportFile = join(dir, "report.json");
    writeFileSync(reportFile, JSON.stringify({ resolved_ids: ["marshmallow-code__marshmallow-1867"], unresolved_ids: ["pydicom__pydicom-1458"] }));

    const report = await importJson("swe-agent", trajs, "--report", reportFile);
    expect(report).toMatchObject({
      files: 3,
      rollouts: { added: 2, quarantined: 1, resolved: 1, withResult: 2 },
      quarantined: [{ file: join(trajs, "broken.traj"), line: 1, reason: "swe-agent: a SWE-agent trajectory has a history list and an info object" }],
    });
    const rows = await db.rollout.findMany({ where: { branchId: report.branchId }, orderBy: { taskId: "asc" } });
    expect(rows.map((r) => [r.taskId, r.reward])).toEqual([["marshmallow-code__marshmallow-1867", 1], ["pydicom__pydicom-1458", 0]]);
  }, 120_000);

  it("creates nothing when every line is quarantined: lists them, exits 1, and leaves no run; a file with one good line then imports", async () => {
    const file = join(dir, "all-bad.jsonl");
    writeFileSync(file, `not json\n{"messages": "not a list"}\n`);
    const runs = await db.run.count();
    const empty = await runCli(["import", "openai-chat", file], { DATABASE_URL: databaseUrl });
    expect(empty.code).toBe(1);
    expect(empty.stderr).toContain("import openai-chat: nothing was stored; every line was quarantined:");
    expect(empty.stderr).toContain(`${file}:1: openai-chat: invalid JSON`);
    expect(empty.stderr).toMatch(new RegExp(`${file}:2: openai-chat: no list of chat messages`));
    expect(empty.stderr).toContain("so no run or branch was created");
    expect(await db.run.count()).toBe(runs);
    expect(await db.quarantinedLine.count({ where: { source: file } })).toBe(0);

    const row = { instance_id: "demo__demo-2", messages: [{ role: "user", content: "Fix it." }, { role: "assistant", content: "Done." }] };
    writeFileSync(file, `not json\n${JSON.stringify(row)}\n`);
    expect(await importJson("openai-chat", file)).toMatchObject({ rollouts: { added: 1, quarantined: 1 } });
    expect(await db.run.count()).toBe(runs + 1);
  }, 120_000);

  it("imports OpenAI chat rows with tool_calls, tool results and content: null", async () => {
    const file = join(dir, "chats.jsonl");
    const row = {
      instance_id: "demo__demo-1",
      messages: [
        { role: "system", content: "You are a coding agent." },
        { role: "user", content: "Fix add()." },
        { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "bash", arguments: '{"command":"pytest -q"}' } }] },
        { role: "tool", tool_call_id: "c1", content: "1 failed" },
        { role: "assistant", content: [{ type: "text", text: "Done." }] },
      ],
      git_patch: "diff --git a/calc.py b/calc.py\n",
      resolved: false,
      model: "some-model",
    };
    writeFileSync(file, `${JSON.stringify(row)}\n{"messages": "not a list"}\n`);
    const report = await importJson("openai-chat", file);
    expect(report).toMatchObject({
      rollouts: { added: 1, quarantined: 1 },
      quarantined: [{ file, line: 2, reason: expect.stringMatching(/^openai-chat: no list of chat messages/) }],
    });
    const stored = await db.rollout.findFirstOrThrow({ where: { branchId: report.branchId } });
    expect(stored.trajectory).toEqual([
      { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "bash", arguments: { command: "pytest -q" } }] },
      { role: "tool", content: "1 failed", toolName: "bash" },
      { role: "assistant", content: "Done." },
    ]);
    expect(stored.extra).toMatchObject({ patch: "diff --git a/calc.py b/calc.py\n", resolved: false, model: "some-model", systemPrompt: "You are a coding agent." });
  }, 120_000);
});
