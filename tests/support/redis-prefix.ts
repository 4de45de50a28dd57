import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";

export const TEST_PREFIX_ROOT = "evotest";

/** A Redis key prefix of one test file, so files never see each other's queues. */
export function testPrefix(): string {
  return `${TEST_PREFIX_ROOT}-${randomBytes(4).toString("hex")}`;
}

/** Deletes every key under `prefix` (BullMQ keys are `${prefix}:${queue}:…`). */
export async function deleteKeys(redisUrl: string, pattern: string): Promise<number> {
  const redis = new Redis(redisUrl);
  try {
    let deleted = 0;
    let cursor = "0";
    do {
      const [next, keys] = await redis.scan(cursor, "MATCH", pattern, "COUNT", 1000);
      cursor = next;
      if (keys.length) deleted += await redis.del(...keys);
    } while (cursor !== "0");
    return deleted;
  } finally {
    redis.disconnect();
  }
}

export async function countKeys(redisUrl: string, pattern: string): Promise<number> {
  const redis = new Redis(redisUrl);
  try {
    let count = 0;
    let cursor = "0";
    do {
      const [next, keys] = await redis.scan(cursor, "MATCH", pattern, "COUNT", 1000);
      cursor = next;
      count += keys.length;
    } while (cursor !== "0");
    return count;
  } finally {
    redis.disconnect();
  }
}
