import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, describe, expect, inject, it } from "vitest";
import type { Rollout } from "@evotrainer/contract";
import { createDatabase } from "@evotrainer/db";
import { headHash, ingestRolloutFile, ingestTexts, storedCursor, type TextSource } from "@evotrainer/db/ingest";
import { seedIngestInput } from "../support/seed.ts";

const rollout = (task: number, sample = 0): Rollout => ({
  uid: `t${task}-${sample}`,
  split: "train",
  step: 0,
  taskId: `t${task}`,
  groupId: `t${task}`,
  sample,
  prompt: `Fix issue ${task}`,
  response: `patch for ${task} — "quoted", comma\nand a newline`,
  reward: task % 2,
  rewardComponents: {},
  responseTokens: 10,
  turns: 1,
  truncated: false,
});

/** One file's rows as the CLI stages them: lines and the values they are the JSON of. */
const staged = (source: string, rows: Rollout[], extraLines: string[] = []): TextSource => ({
  source,
  lines: [...rows.map((r) => JSON.stringify(r)), ...extraLines],
  values: rows,
  unreadable: [],
});

describe("ingest of in-memory sources, many to a transaction (real Postgres)", () => {
  const databaseUrl = inject("databaseUrl");
  const db = createDatabase(databaseUrl);
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  afterAll(async () => {
    await pool.end();
    await db.$disconnect();
  });
  const rowsOf = async (branchId: string) => (await pool.query<{ uid: string }>(`SELECT uid FROM "Rollout" WHERE "branchId" = $1 ORDER BY uid`, [branchId])).rows.map((r) => r.uid);

  it("stores many small sources in a few transactions, each source's cursor and quarantined lines its own, and adds nothing the second time", async () => {
    const input = await seedIngestInput(db, "texts-many");
    const sources = Array.from({ length: 40 }, (_, i) => staged(`trajs/${i}.traj.json`, [rollout(i)], i === 7 ? ["{not json"] : []));
    sources[3] = { ...sources[3]!, lines: ["", ...sources[3]!.lines], values: [undefined, ...sources[3]!.values!], unreadable: [{ lineNumber: 1, reason: "mini-swe-agent: no messages", raw: "{}" }] };
    const stored: string[] = [];
    const first = await ingestTexts(pool, input, sources, { batchBytes: 4_000, onStored: ({ source }) => stored.push(source) });
    expect(first).toEqual({ inserted: 40, duplicates: 0, quarantined: 2, resultsChanged: 0, rewritten: [] });
    expect(stored).toEqual(sources.map((s) => s.source));
    // Transactions held several sources each: fewer cursor updates than sources would have been one per file.
    const { rows: xmins } = await pool.query<{ n: string }>(`SELECT count(DISTINCT xmin::text)::text AS n FROM "IngestCursor" WHERE "jobId" = $1`, [input.owner.jobId]);
    expect(Number(xmins[0]!.n)).toBeGreaterThan(1);
    expect(Number(xmins[0]!.n)).toBeLessThan(20);
    const quarantined = await db.quarantinedLine.findMany({ where: { jobId: input.owner.jobId }, orderBy: { source: "asc" } });
    expect(quarantined.map((q) => [q.source, q.lineNumber])).toEqual([["trajs/3.traj.json", 1], ["trajs/7.traj.json", 2]]);
    expect(quarantined[1]!.reason).toMatch(/invalid JSON/);
    expect(await rowsOf(input.owner.branchId)).toHaveLength(40);

    const again = await ingestTexts(pool, input, sources, { batchBytes: 4_000 });
    expect(again).toEqual({ inserted: 0, duplicates: 0, quarantined: 1, resultsChanged: 0, rewritten: [] });
    expect(await rowsOf(input.owner.branchId)).toHaveLength(40);
  });

  it("cuts a large source into several transactions, and resumes one cut short at its next line", async () => {
    const input = await seedIngestInput(db, "texts-large");
    const rows = Array.from({ length: 60 }, (_, i) => rollout(1, i));
    const source = staged("rollouts.jsonl", rows);
    // Only the first 25 lines, as if the command had stopped there: the same text grows, then is read whole.
    const part = await ingestTexts(pool, input, [{ ...source, lines: source.lines.slice(0, 25) }], { batchBytes: 2_000 });
    expect(part.inserted).toBe(25);
    const cursor = await storedCursor(pool, input.owner.jobId, "rollouts.jsonl");
    expect(cursor.lineNumber).toBe(25);
    const rest = await ingestTexts(pool, input, [source], { batchBytes: 2_000 });
    expect(rest).toEqual({ inserted: 35, duplicates: 0, quarantined: 0, resultsChanged: 0, rewritten: [] });
    expect(await rowsOf(input.owner.branchId)).toHaveLength(60);
  });

  it("reads a source whose start changed again from its start, and skips the rows already stored by uid", async () => {
    const input = await seedIngestInput(db, "texts-rewritten");
    const rows = [rollout(1), rollout(2), rollout(3)];
    await ingestTexts(pool, input, [staged("out.jsonl", rows)]);
    const rewritten = await ingestTexts(pool, input, [staged("out.jsonl", [rollout(9), ...rows])]);
    expect(rewritten).toEqual({ inserted: 1, duplicates: 3, quarantined: 0, resultsChanged: 0, rewritten: ["out.jsonl"] });
    expect(await rowsOf(input.owner.branchId)).toEqual(["t1-0", "t2-0", "t3-0", "t9-0"]);
  });

  it("keeps the cursor of the same text staged as a file by the file reader: an earlier import resumes", async () => {
    const input = await seedIngestInput(db, "texts-from-file");
    const rows = [rollout(1), rollout(2)];
    const dir = mkdtempSync(join(tmpdir(), "evo-texts-"));
    try {
      const file = join(dir, "0.jsonl");
      writeFileSync(file, rows.map((r) => `${JSON.stringify(r)}\n`).join(""));
      await ingestRolloutFile(pool, { ...input, file, source: "out.jsonl" });
      const saved = await storedCursor(pool, input.owner.jobId, "out.jsonl");
      expect(saved.headHash).toBe(await headHash(file, saved.byteOffset));
      const again = await ingestTexts(pool, input, [staged("out.jsonl", [...rows, rollout(3)])]);
      expect(again).toEqual({ inserted: 1, duplicates: 0, quarantined: 0, resultsChanged: 0, rewritten: [] });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
