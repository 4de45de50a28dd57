import { stat } from "node:fs/promises";
import type pg from "pg";
import { metricsLineSchema, parseJsonlLine, readJsonlFrom, type MetricsLine } from "@evotrainer/contract";
import { headHash, resumeCursor, saveCursor } from "./file-cursor.ts";
import { claimSteps, clearTrainerSteps, ownedLine } from "./step-attempts.ts";

/**
 * A trainer's metrics as the branch's MetricPoints, named `trainer/<key>`; null values (NaN in the
 * trainer's log) are left out. One statement: a run logs a few hundred metrics per step. A point
 * already there with the same value is left alone, so a second write reports nothing added or changed.
 */
export async function writeTrainerMetrics(
  db: Pick<pg.Pool | pg.PoolClient, "query">,
  branchId: string,
  lines: readonly MetricsLine[],
): Promise<{ added: number; changed: number }> {
  // A resumed trainer logs its steps after the checkpoint again: the last line of a step wins.
  const byKey = new Map<string, { step: number; name: string; value: number }>();
  for (const line of lines) {
    for (const [key, value] of Object.entries(line.data)) {
      if (value !== null) byKey.set(`${line.step}|${key}`, { step: line.step, name: `trainer/${key}`, value });
    }
  }
  const points = [...byKey.values()];
  if (points.length === 0) return { added: 0, changed: 0 };
  const { rows } = await db.query<{ inserted: boolean }>(
    `INSERT INTO "MetricPoint" ("branchId", step, name, value)
     SELECT $1, p.step, p.name, p.value FROM jsonb_to_recordset($2::jsonb) AS p(step int, name text, value float8)
     ON CONFLICT ("branchId", name, step) DO UPDATE SET value = EXCLUDED.value
       WHERE "MetricPoint".value IS DISTINCT FROM EXCLUDED.value
     RETURNING (xmax = 0) AS inserted`,
    [branchId, JSON.stringify(points)],
  );
  const added = rows.filter((r) => r.inserted).length;
  return { added, changed: rows.length - added };
}

/**
 * Brings a job's growing metrics.jsonl (verl's file-logger shape) in from where the last call stopped:
 * the points and the advanced cursor commit together, so a crash never skips or loses a step.
 */
export async function ingestTrainerMetricsFile(
  pool: pg.Pool,
  input: { jobId: string; branchId: string; file: string; source: string },
): Promise<{ steps: number }> {
  const size = (await stat(input.file).catch(() => null))?.size ?? 0;
  const resumed = await resumeCursor(pool, input.jobId, input.source, input.file, size);
  const tail = await readJsonlFrom(input.file, resumed);
  if (tail.nextOffset === resumed.byteOffset) return { steps: 0 };
  const read = tail.lines.flatMap((line) => {
    const parsed = parseJsonlLine(line.text, metricsLineSchema);
    return parsed.ok ? [parsed.value] : [];
  });
  let lines: MetricsLine[] = [];
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    // A retry's first line of a step replaces the step's metrics of the attempt before; the crashed
    // attempt's lines read after that are dropped.
    const attempted = (line: MetricsLine) => ({ stream: "trainer", step: line.step, attempt: line.attempt });
    const owners = await claimSteps(client, input.jobId, read.map(attempted), (steps) => clearTrainerSteps(client, input.branchId, steps));
    lines = read.filter((line) => ownedLine(owners, attempted(line)));
    await writeTrainerMetrics(client, input.branchId, lines);
    await saveCursor(client, input.jobId, input.source, { byteOffset: tail.nextOffset, lineNumber: tail.nextLineNumber, headHash: await headHash(input.file, tail.nextOffset) });
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK");
    throw error;
  } finally {
    client.release();
  }
  return { steps: lines.length };
}
