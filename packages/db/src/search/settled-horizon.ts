import type { Tx } from "../repositories/events.ts";

export interface SearchProgress {
  indexedThrough: bigint;
  settledThrough: bigint;
  observedThrough: bigint | null;
  observedWriters: string[];
}

/**
 * Moves a branch's settled horizon up, on its locked progress row, and returns it: the highest id
 * below which no rollout can still appear. Ids come from one sequence but their transactions commit
 * in any order, so an id the indexer passed could otherwise commit later and never be indexed.
 *
 * A transaction that draws an id holds its lock on "Rollout" from before the draw until it ends.
 * So the indexer reads the sequence, then the transactions holding that lock: once those have all
 * ended, every id up to what it read is settled. It looks again each time, and never waits: with
 * nobody writing, the horizon is the sequence at once; under continuous ingest it lags by one look.
 */
export async function settleHorizon(tx: Tx, branchId: string, progress: SearchProgress): Promise<bigint> {
  let settled = progress.settledThrough;
  let observation = progress.observedThrough === null ? null : { through: progress.observedThrough, writers: progress.observedWriters };
  if (observation) {
    const [{ running }] = await tx.$queryRaw<[{ running: number }]>`
      SELECT count(*)::int AS running FROM pg_locks WHERE virtualtransaction = ANY(${observation.writers}::text[])`;
    if (running === 0) {
      if (observation.through > settled) settled = observation.through;
      observation = null;
    }
  }
  // A pending look keeps its place until its writers end: replacing it with each new look would
  // never settle while batches of ingest overlap.
  if (!observation) {
    const [{ through }] = await tx.$queryRaw<[{ through: bigint }]>`
      SELECT CASE WHEN is_called THEN last_value ELSE last_value - 1 END AS through FROM "Rollout_id_seq"`;
    const [{ writers }] = await tx.$queryRaw<[{ writers: string[] }]>`
      SELECT coalesce(array_agg(DISTINCT virtualtransaction), '{}') AS writers FROM pg_locks
       WHERE locktype = 'relation' AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
         AND relation = '"Rollout"'::regclass AND mode = 'RowExclusiveLock' AND pid <> pg_backend_pid()`;
    if (writers.length === 0) {
      if (through > settled) settled = through;
    } else observation = { through, writers };
  }
  await tx.$executeRaw`
    UPDATE "RolloutSearchProgress"
       SET "settledThrough" = ${settled}, "observedThrough" = ${observation?.through ?? null}, "observedWriters" = ${observation?.writers ?? []}::text[]
     WHERE "branchId" = ${branchId}`;
  return settled;
}
