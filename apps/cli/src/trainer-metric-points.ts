import type pg from "pg";
import type { MetricsLine } from "@evotrainer/contract";

/**
 * A run's trainer metrics as the branch's MetricPoints, named `trainer/<key>` as the worker's
 * ingest names them; null values (NaN in the trainer's log) are left out. One statement: a run
 * logs a few hundred metrics per step. A point already there with the same value is left alone,
 * so a second import reports nothing added or changed.
 */
export async function upsertTrainerMetrics(pool: pg.Pool, branchId: string, lines: readonly MetricsLine[]): Promise<{ added: number; changed: number }> {
  const points = lines.flatMap((line) =>
    Object.entries(line.data).flatMap(([key, value]) => (value === null ? [] : [{ step: line.step, name: `trainer/${key}`, value }])),
  );
  if (points.length === 0) return { added: 0, changed: 0 };
  const { rows } = await pool.query<{ inserted: boolean }>(
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
