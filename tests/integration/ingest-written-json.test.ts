import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import pg from "pg";
import { afterAll, describe, expect, inject, it } from "vitest";
import { miniSweAgentRollout, swebenchInstanceResult } from "@evotrainer/adapters";
import type { Rollout } from "@evotrainer/contract";
import { createDatabase } from "@evotrainer/db";
import { ingestTexts, type TextSource } from "@evotrainer/db/ingest";
import { rolloutJsonPieces, ropeOf } from "../../apps/cli/src/rollout-json.ts";
import { seedIngestInput } from "../support/seed.ts";

const FIXTURE = "tests/fixtures/real/mini-swe-agent-gemini-3-pro-dev150.jsonl.gz";

/** The real trajectories as `evotrainer import` converts them. */
function realRollouts(): Rollout[] {
  const bundled = gunzipSync(readFileSync(FIXTURE)).toString("utf8").trim().split("\n").map((line) => JSON.parse(line) as { instance_id: string; traj: Record<string, unknown>; report: unknown });
  return bundled.map((one) => miniSweAgentRollout({ ...one.traj, instance_id: one.instance_id }, { where: one.instance_id, report: new Map([[one.instance_id, swebenchInstanceResult(one.report, one.instance_id)]]) }));
}

/** Staged as the CLI stages them: lines as ropes of pieces, with the JSON of each row's trajectory and extra. */
function staged(source: string, rows: readonly Rollout[], withJson: boolean): TextSource {
  const written = rows.map(rolloutJsonPieces);
  return {
    source,
    lines: written.map((w) => ropeOf(w.pieces)),
    values: rows,
    pieces: written.map((w) => w.pieces),
    ...(withJson ? { json: written.map((w) => w.fields) } : {}),
    unreadable: [],
  };
}

describe("ingest stores the JSON the CLI already wrote of a trajectory and extra (real Postgres, real SWE trajectories)", () => {
  const databaseUrl = inject("databaseUrl");
  const db = createDatabase(databaseUrl);
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  afterAll(async () => {
    await pool.end();
    await db.$disconnect();
  });

  it("stores the same trajectory and extra as writing the validated rollout again, and the validated form where validation changed it", async () => {
    const real = realRollouts();
    // Validation changes these: a tool call without arguments gets `{}`, a key a turn does not have is dropped.
    const changed = {
      ...real[0]!,
      uid: "changed-by-validation",
      trajectory: [
        { role: "assistant", content: "running it", toolCalls: [{ name: "bash" }] },
        { role: "tool", content: "ok", toolName: "bash", timestamp: 12 },
      ],
    } as unknown as Rollout;
    const rows = [...real, changed];
    const reused = await seedIngestInput(db, "written-json-reused");
    const written = await seedIngestInput(db, "written-json-written");
    expect(await ingestTexts(pool, reused, [staged("trajs", rows, true)])).toMatchObject({ inserted: rows.length, quarantined: 0 });
    expect(await ingestTexts(pool, written, [staged("trajs", rows, false)])).toMatchObject({ inserted: rows.length, quarantined: 0 });

    const { rows: compared } = await pool.query<{ same: string; differ: string; extras: string }>(
      `SELECT count(*) FILTER (WHERE a.trajectory = b.trajectory AND a.extra IS NOT DISTINCT FROM b.extra)::text AS same,
              count(*) FILTER (WHERE a.trajectory IS DISTINCT FROM b.trajectory OR a.extra IS DISTINCT FROM b.extra)::text AS differ,
              count(*) FILTER (WHERE a.extra IS NOT NULL AND a.extra <> '{}'::jsonb)::text AS extras
       FROM "Rollout" a JOIN "Rollout" b USING (uid)
       WHERE a."branchId" = $1 AND b."branchId" = $2`,
      [reused.owner.branchId, written.owner.branchId],
    );
    expect(compared[0]).toEqual({ same: String(rows.length), differ: "0", extras: String(rows.length) });

    const { rows: stored } = await pool.query<{ trajectory: unknown }>(`SELECT trajectory FROM "Rollout" WHERE "branchId" = $1 AND uid = 'changed-by-validation'`, [reused.owner.branchId]);
    expect(stored[0]!.trajectory).toEqual([
      { role: "assistant", content: "running it", toolCalls: [{ name: "bash", arguments: {} }] },
      { role: "tool", content: "ok", toolName: "bash" },
    ]);
  });
});
