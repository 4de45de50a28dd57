import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";

/**
 * The prefix root of one test run. Global setup names the run before any test file loads, and the
 * test workers inherit it, so two runs on one Redis (a developer's and CI's) never count each
 * other's keys as leftovers.
 */
export function nameTestRun(): string {
  process.env.EVO_TEST_RUN ??= randomBytes(3).toString("hex");
  return testPrefixRoot();
}

export function testPrefixRoot(): string {
  const run = process.env.EVO_TEST_RUN;
  if (!run) throw new Error("EVO_TEST_RUN is unset: run integration tests through vitest's integration project, whose global setup names the run");
  return `evotest${run}`;
}

/** A Redis key prefix of one test file, so files never see each other's queues. */
export function testPrefix(): string {
  return `${testPrefixRoot()}-${randomBytes(4).toString("hex")}`;
}

async function withKeys<T>(redisUrl: string, pattern: string, onBatch: (redis: Redis, keys: string[]) => Promise<T>): Promise<T[]> {
  const redis = new Redis(redisUrl);
  const results: T[] = [];
  try {
    let cursor = "0";
    do {
      const [next, keys] = await redis.scan(cursor, "MATCH", pattern, "COUNT", 1000);
      cursor = next;
      if (keys.length) results.push(await onBatch(redis, keys));
    } while (cursor !== "0");
    return results;
  } finally {
    redis.disconnect();
  }
}

/** Deletes every key matching `pattern` (BullMQ keys are `${prefix}:${queue}:…`). */
export async function deleteKeys(redisUrl: string, pattern: string): Promise<number> {
  const deleted = await withKeys(redisUrl, pattern, (redis, keys) => redis.del(...keys));
  return deleted.reduce((sum, n) => sum + n, 0);
}

export async function countKeys(redisUrl: string, pattern: string): Promise<number> {
  const counts = await withKeys(redisUrl, pattern, async (_redis, keys) => keys.length);
  return counts.reduce((sum, n) => sum + n, 0);
}
