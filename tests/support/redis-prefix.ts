import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";

export const TEST_PREFIX_ROOT = "evotest";

/** A Redis key prefix of one test file, so files never see each other's queues. */
export function testPrefix(): string {
  return `${TEST_PREFIX_ROOT}-${randomBytes(4).toString("hex")}`;
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
