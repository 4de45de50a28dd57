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

  it("import --help names openhands and the layout it reads", async () => {
    const help = await runCli(["import", "--help"], { DATABASE_URL: databaseUrl });
    expect(help.code).toBe(0);
    for (const text of ["openhands", "output.jsonl", "Without a format (evotrainer import <file-or-dir> …)", "output.swebench_eval.jsonl", "evaluation_outputs/outputs/<dataset>/<agent>/"]) expect(help.stdout).toContain(text);
  }, 120_000);
});
