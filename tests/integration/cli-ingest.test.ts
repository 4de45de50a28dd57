import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import { parse } from "yaml";
import { runConfigSchema } from "@evotrainer/core";
import { createDatabase, createRun } from "@evotrainer/db";
import { CLI } from "../support/cli.ts";

const databaseUrl = inject("databaseUrl");
const db = createDatabase(databaseUrl);
const dir = mkdtempSync(join(tmpdir(), "evo-cli-ingest-"));

const cli = (...args: string[]) =>
  spawnSync(process.execPath, [CLI, ...args], { env: { ...process.env, DATABASE_URL: databaseUrl }, encoding: "utf8" });

describe("evotrainer ingest", () => {
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    await db.$disconnect();
  });

  it("loads every good line labelled by the run's harness, lists each quarantined line, and adds nothing the second time", async () => {
    const config = runConfigSchema.parse({ ...(parse(readFileSync("examples/gym-swe.yaml", "utf8")) as object), name: "cli-ingest" });
    const org = await db.organization.create({ data: { name: "cli-ingest", slug: `cli-ingest-${process.pid}` } });
    const { runId, baseBranchId } = await createRun(db, config, { organizationId: org.id });
    const row = (i: number) => ({
      uid: `imp-${i}`, split: "train", step: 1, taskId: `t${i}`, groupId: `t${i}@1`, sample: 0, prompt: "fix the bug",
      trajectory: [{ role: "assistant", content: "I will edit the test", toolCalls: [{ name: "edit_file", arguments: { path: "tests/test_core.py" } }] }],
      reward: 1, responseTokens: 50, turns: 2, extra: { patch: "--- a/tests/test_core.py\n+++ b/tests/test_core.py\n@@ -1 +1 @@\n-assert f() == 2\n+assert True\n" },
    });
    const file = join(dir, "outside.jsonl");
    writeFileSync(file, [JSON.stringify(row(1)), "not json", JSON.stringify({ ...row(2), reward: "1" }), JSON.stringify(row(3)), ""].join("\n"));

    const first = cli("ingest", file, "--branch", baseBranchId);
    expect(first.status, first.stderr).toBe(0);
    expect(first.stdout).toContain("2 rollouts added, 0 already present, 2 lines quarantined");
    expect(first.stdout).toMatch(/outside\.jsonl:2: .*JSON/i);
    expect(first.stdout).toMatch(/outside\.jsonl:3: reward/);
    const tampering = await db.rolloutLabel.count({ where: { branchId: baseBranchId, label: "test_tampering" } });
    expect(tampering).toBe(2);

    const again = cli("ingest", file, "--branch", baseBranchId);
    expect(again.stdout).toContain("0 rollouts added");
    expect(await db.rollout.count({ where: { runId } })).toBe(2);
    expect(cli("ingest", file, "--branch", "nope").stderr).toMatch(/no branch with id nope/);
  }, 60_000);
});
