import type pg from "pg";

/** What a line says about where it belongs: the stream ("train", "promotion", "sealed" rollouts; "trainer" metrics), step and attempt. */
export interface AttemptedLine {
  stream: string;
  step: number;
  /** The job attempt that wrote the line; lines without one (imported data) are outside this bookkeeping. */
  attempt: number | undefined;
}

/** A stream and step, as the key of the maps below. */
export const stepKey = (stream: string, step: number) => `${stream}|${step}`;

/** The newest attempt among the lines of each stream and step (lines without one left out). */
export function newestAttempts(lines: readonly AttemptedLine[]): Map<string, number> {
  const newest = new Map<string, number>();
  for (const { stream, step, attempt } of lines) {
    if (attempt === undefined) continue;
    const key = stepKey(stream, step);
    if ((newest.get(key) ?? 0) < attempt) newest.set(key, attempt);
  }
  return newest;
}

/**
 * Makes each step a batch writes belong to the newest attempt of the job that wrote it, inside the
 * batch's transaction. A step first written by a later attempt than the one that owns it is handed
 * over: `clear` removes the step's rows and everything derived from them, so the step ends up holding
 * the later attempt's lines alone (a retry that writes different content for the same uids replaces
 * them, and one that writes fewer leaves none of the old behind). Returns, per step, the attempt
 * that owns it now: lines of an older attempt (a file the crashed attempt left, read again) are
 * dropped by the caller. Steps are locked per job, so two ingests of one job hand a step over once.
 */
export async function claimSteps(
  client: pg.PoolClient,
  jobId: string,
  lines: readonly AttemptedLine[],
  clear: (steps: { stream: string; step: number }[]) => Promise<void>,
): Promise<Map<string, number>> {
  const newest = new Map<string, { stream: string; step: number; attempt: number }>();
  for (const [key, attempt] of newestAttempts(lines)) {
    const [stream, step] = key.split("|") as [string, string];
    newest.set(key, { stream, step: Number(step), attempt });
  }
  const owners = new Map<string, number>();
  if (newest.size === 0) return owners;
  await client.query(`SELECT pg_advisory_xact_lock(hashtext('step-attempts:' || $1))`, [jobId]);
  const { rows } = await client.query<{ stream: string; step: number; attempt: number }>(
    `SELECT a.stream, a.step, a.attempt FROM "StepAttempt" a
       JOIN jsonb_to_recordset($2::jsonb) AS k(stream text, step int) USING (stream, step)
      WHERE a."jobId" = $1`,
    [jobId, JSON.stringify([...newest.values()].map(({ stream, step }) => ({ stream, step })))],
  );
  for (const row of rows) owners.set(stepKey(row.stream, row.step), row.attempt);
  const handedOver = [...newest.entries()].filter(([key, line]) => (owners.get(key) ?? 0) < line.attempt);
  if (handedOver.length === 0) return owners;
  // Steps no attempt owned yet have nothing to clear (or only untracked rows, which stay).
  const superseded = handedOver.filter(([key]) => owners.has(key)).map(([, { stream, step }]) => ({ stream, step }));
  if (superseded.length > 0) await clear(superseded);
  await client.query(
    `INSERT INTO "StepAttempt" ("jobId", stream, step, attempt)
     SELECT $1, k.stream, k.step, k.attempt FROM jsonb_to_recordset($2::jsonb) AS k(stream text, step int, attempt int)
     ON CONFLICT ("jobId", stream, step) DO UPDATE SET attempt = EXCLUDED.attempt`,
    [jobId, JSON.stringify(handedOver.map(([, line]) => line))],
  );
  for (const [key, { attempt }] of handedOver) owners.set(key, attempt);
  return owners;
}

/** Whether a line is kept: it has no attempt, or its attempt owns its step. */
export function ownedLine(owners: ReadonlyMap<string, number>, line: AttemptedLine): boolean {
  return line.attempt === undefined || owners.get(stepKey(line.stream, line.step)) === line.attempt;
}

/**
 * Removes a branch's rollouts of the given split/steps and everything ingest derived from them (their
 * labels, LabelStat counts, step and group totals, the steps' MetricPoints of that split), as if the
 * steps had never been ingested. Labels, search rows and reviews of the rollouts go with them (cascade).
 */
export async function clearRolloutSteps(client: pg.PoolClient, branchId: string, steps: readonly { stream: string; step: number }[]): Promise<void> {
  // The same lock as addToStepAggregates: totals are never read while a step is being emptied.
  await client.query(`SELECT pg_advisory_xact_lock(hashtext('step-aggregates:' || $1))`, [branchId]);
  const keys = JSON.stringify(steps.map(({ stream, step }) => ({ split: stream, step })));
  const where = `"branchId" = $1 AND (split::text, step) IN (SELECT k.split, k.step FROM jsonb_to_recordset($2::jsonb) AS k(split text, step int))`;
  for (const table of ["Rollout", "LabelStat", "StepStat", "StepGroupStat"]) {
    await client.query(`DELETE FROM "${table}" WHERE ${where}`, [branchId, keys]);
  }
  await client.query(
    `DELETE FROM "MetricPoint" p USING jsonb_to_recordset($2::jsonb) AS k(split text, step int)
      WHERE p."branchId" = $1 AND p.step = k.step AND p.name LIKE k.split || '/%'`,
    [branchId, keys],
  );
}

/** Removes a branch's trainer metrics (`trainer/…` MetricPoints) at the given steps. */
export async function clearTrainerSteps(client: pg.PoolClient, branchId: string, steps: readonly { step: number }[]): Promise<void> {
  await client.query(`DELETE FROM "MetricPoint" WHERE "branchId" = $1 AND step = ANY($2::int[]) AND name LIKE 'trainer/%'`, [branchId, steps.map((s) => s.step)]);
}
