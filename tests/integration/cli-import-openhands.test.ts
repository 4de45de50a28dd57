import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { gunzipSync } from "node:zlib";
import { afterAll, describe, expect, inject, it } from "vitest";
import { createDatabase } from "@evotrainer/db";
import { runCli } from "../support/cli.ts";

const databaseUrl = inject("databaseUrl");
const db = createDatabase(databaseUrl);
const dir = mkdtempSync(join(tmpdir(), "evo-cli-import-openhands-"));
const REAL = resolve("tests/fixtures/real-openhands");

async function importJson(...args: string[]) {
  const result = await runCli(["import", ...args, "--json"], { DATABASE_URL: databaseUrl });
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as Record<string, any>;
}

describe("evotrainer import openhands", () => {
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    await db.$disconnect();
  });

  it("imports OpenHands' published output directories without flags or even the format, results joined from report.json and output.swebench_eval.jsonl, a bad line quarantined, nothing twice", async () => {
    // OpenHands writes evaluation_outputs/outputs/<dataset>/<agent>/<model>_maxiter_<n>_N_<note>/output.jsonl,
    // and puts the results beside it: the SWE-bench harness's summary report.json (eval_infer.sh), or
    // output.swebench_eval.jsonl from its remote evaluation.
    const outputs = join(dir, "evaluation_outputs/outputs");
    const java = join(outputs, "Multi-SWE-bench__java/CodeActAgent/gpt-5_maxiter_50_N_v1");
    const pony = join(outputs, "Multi-SWE-bench__c/CodeActAgent/llama-4-maverick_maxiter_50_N_v1");
    mkdirSync(java, { recursive: true });
    mkdirSync(pony, { recursive: true });
    copyFileSync(join(REAL, "fastjson2/output.jsonl.gz"), join(java, "output.jsonl.gz"));
    writeFileSync(join(java, "report.json"), JSON.stringify({ total_instances: 1, resolved_instances: 1, resolved_ids: ["alibaba__fastjson2-2775"], unresolved_ids: [], empty_patch_ids: [], error_ids: [], incomplete_ids: [] }));
    const ponyLines = gunzipSync(readFileSync(join(REAL, "multi-swe-bench-examples/output.jsonl.gz"))).toString("utf8").trim().split("\n");
    const ponyOutput = join(pony, "output.jsonl");
    writeFileSync(ponyOutput, `${[...ponyLines, JSON.stringify({ instance_id: "ponylang__ponyc-1", history: "lost" })].join("\n")}\n`);
    const evalLine = (id: string, resolved: boolean) => JSON.stringify({ instance_id: id, test_result: { report: { empty_generation: false, resolved, failed_apply_patch: false, error_eval: false, test_timeout: false } } });
    writeFileSync(join(pony, "output.swebench_eval.jsonl"), [evalLine("ponylang__ponyc-4595", true), evalLine("ponylang__ponyc-4593", false), evalLine("ponylang__ponyc-4588", false)].join("\n"));

    const report = await importJson("openhands", outputs);
    expect(report).toMatchObject({
      format: "openhands",
      files: 2,
      created: true,
      rollouts: { added: 4, alreadyPresent: 0, quarantined: 1, resolved: 2, withResult: 4 },
      labels: { tool_error: 2, no_test_after_edit: 2, env_error: 1 },
      quarantined: [{ file: ponyOutput, line: 4, reason: "openhands: history is not a list of events" }],
    });
    const { branchId } = report as { branchId: string };
    const rows = await db.rollout.findMany({ where: { branchId }, orderBy: { taskId: "asc" } });
    expect(rows.map((r) => [r.taskId, r.reward, r.turns, r.truncated])).toEqual([
      ["alibaba__fastjson2-2775", 1, 20, false],
      ["ponylang__ponyc-4588", 0, 49, true],
      ["ponylang__ponyc-4593", 0, 33, false],
      ["ponylang__ponyc-4595", 1, 23, false],
    ]);
    expect(rows.every((r) => /^[\w.-]+__[\w.-]+@[0-9a-f]{16}$/.test(r.uid))).toBe(true);
    expect(rows[1]!.finishReason).toMatch(/^RuntimeError: Agent reached maximum iteration/);
    expect(rows[3]!.extra).toMatchObject({ format: "openhands", resolved: true, report: { empty_generation: false }, patch: expect.stringMatching(/^diff --git a\/src\/libponyc\/ast\/parser.c/) });

    // Named without its format, the directory is told by its layout.
    const again = await importJson(outputs);
    expect(again).toMatchObject({ format: "openhands", branchId, created: false, rollouts: { added: 0 } });
    // The file rewritten (lines reordered, the bad one fixed by dropping it): the same three, by content.
    writeFileSync(ponyOutput, `${[...ponyLines].reverse().join("\n")}\n`);
    const reordered = await importJson("openhands", outputs);
    expect(reordered).toMatchObject({ branchId, created: false, rollouts: { added: 0, alreadyPresent: 3, quarantined: 0 } });
    expect(await db.rollout.count({ where: { branchId } })).toBe(4);
  }, 300_000);

  it("imports OpenHands' iterative evaluation (output.critic_attempt_<n>.jsonl, n = 1…3) without flags, each attempt its own row, output.jsonl's copies read once, results joined to the attempt output.jsonl kept", async () => {
    // run_infer.py with ITERATIVE_EVAL_MODE=true (evaluation/benchmarks/swe_bench/run_infer.py): attempt n
    // writes output.critic_attempt_<n>.jsonl; the next attempt retries the instances its critic
    // (AgentFinishedCritic: a finish action and a non-empty patch) failed; then output.jsonl gets, per
    // instance, the line of the last attempt with a non-empty patch, copied as it was. Here ponyc-4588
    // hit the iteration limit in every attempt, and each retry repeated the same messages: the attempt
    // alone tells the three rows apart.
    const iterative = join(dir, "evaluation_outputs/outputs/Multi-SWE-bench__c/CodeActAgent/llama-4-maverick_maxiter_50_N_iterative");
    mkdirSync(iterative, { recursive: true });
    const lines = gunzipSync(readFileSync(join(REAL, "multi-swe-bench-examples/output.jsonl.gz"))).toString("utf8").trim().split("\n");
    const limited = lines.find((line) => (JSON.parse(line) as { instance_id: string }).instance_id === "ponylang__ponyc-4588")!;
    const attempts = [lines, [limited], [limited]];
    attempts.forEach((rows, i) => writeFileSync(join(iterative, `output.critic_attempt_${i + 1}.jsonl`), `${rows.join("\n")}\n`));
    const kept = new Map<string, string>();
    for (const rows of [...attempts].reverse()) {
      for (const line of rows) {
        const row = JSON.parse(line) as { instance_id: string; test_result: { git_patch: string } };
        if (!kept.has(row.instance_id) && row.test_result.git_patch.trim() !== "") kept.set(row.instance_id, line);
      }
    }
    const output = join(iterative, "output.jsonl");
    writeFileSync(output, `${[...kept.values()].join("\n")}\n`);
    // eval_infer.py evaluates output.jsonl into output.swebench_eval.jsonl.
    const evalLine = (id: string, resolved: boolean) => JSON.stringify({ instance_id: id, test_result: { report: { empty_generation: false, resolved, failed_apply_patch: false, error_eval: false, test_timeout: false } } });
    const evaluation = join(iterative, "output.swebench_eval.jsonl");
    writeFileSync(evaluation, [evalLine("ponylang__ponyc-4595", true), evalLine("ponylang__ponyc-4593", false), evalLine("ponylang__ponyc-4588", true)].join("\n"));

    const report = await importJson(iterative);
    expect(report).toMatchObject({ format: "openhands", files: 4, created: true, reports: [evaluation], rollouts: { added: 5, alreadyPresent: 0, quarantined: 0, resolved: 2, withResult: 3 } });
    const rows = await db.rollout.findMany({ where: { branchId: report.branchId }, orderBy: { uid: "asc" } });
    const hash = (uid: string) => uid.slice(uid.indexOf("@"));
    expect(rows.map((r) => [r.uid.replace(/@.*/, ""), r.reward, (r.extra as { attempt?: number }).attempt])).toEqual([
      // Not evaluated: no result is known, which is not a failure.
      ["ponylang__ponyc-4588/attempt-1", null, 1],
      ["ponylang__ponyc-4588/attempt-2", null, 2],
      ["ponylang__ponyc-4588/attempt-3", 1, 3],
      ["ponylang__ponyc-4593/attempt-1", 0, 1],
      ["ponylang__ponyc-4595/attempt-1", 1, 1],
    ]);
    expect(new Set(rows.slice(0, 3).map((r) => hash(r.uid))).size).toBe(1);
    // output.jsonl's result belongs to the attempt it kept: attempts 1 and 2 of ponyc-4588 were not evaluated.
    expect(rows.map((r) => (r.extra as { resolved?: boolean }).resolved)).toEqual([undefined, undefined, true, false, true]);
    expect(await importJson(iterative)).toMatchObject({ branchId: report.branchId, created: false, rollouts: { added: 0 } });

    // output.jsonl alone: the report beside it is read and named, and its rows are the attempts they copy.
    const single = await importJson("openhands", output);
    expect(single).toMatchObject({ files: 1, created: true, reports: [evaluation], rollouts: { added: 3, alreadyPresent: 0, resolved: 2, withResult: 3 } });
    const singleUids = (await db.rollout.findMany({ where: { branchId: single.branchId }, select: { uid: true } })).map((r) => r.uid).sort();
    expect(singleUids).toEqual([rows[2]!.uid, rows[3]!.uid, rows[4]!.uid]);
    const again = await runCli(["import", "openhands", output], { DATABASE_URL: databaseUrl });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain("import openhands: 0 rollouts added, ");
    expect(again.stdout).toContain(`results from ${evaluation}`);
    // One attempt file alone: its rows, with the results of the instances output.jsonl kept from it.
    const second = await importJson("openhands", join(iterative, "output.critic_attempt_3.jsonl"));
    expect(second).toMatchObject({ files: 1, reports: [evaluation], rollouts: { added: 1, resolved: 1, withResult: 1 } });

    // Stopped before output.jsonl was written: the attempt files alone, told by their names.
    const interrupted = join(dir, "interrupted");
    mkdirSync(interrupted);
    for (const n of [1, 2]) copyFileSync(join(iterative, `output.critic_attempt_${n}.jsonl`), join(interrupted, `output.critic_attempt_${n}.jsonl`));
    const partial = await importJson(interrupted);
    expect(partial).toMatchObject({ format: "openhands", files: 2, reports: [], rollouts: { added: 4, alreadyPresent: 0, withResult: 0 } });
  }, 300_000);

  it("import --help names openhands and the layout it reads", async () => {
    const help = await runCli(["import", "--help"], { DATABASE_URL: databaseUrl });
    expect(help.code).toBe(0);
    for (const text of ["openhands", "output.jsonl", "output.critic_attempt_<n>.jsonl", "ITERATIVE_EVAL_MODE", "Without a format (evotrainer import <file-or-dir> …)", "output.swebench_eval.jsonl", "evaluation_outputs/outputs/<dataset>/<agent>/"]) expect(help.stdout).toContain(text);
  }, 120_000);
});
