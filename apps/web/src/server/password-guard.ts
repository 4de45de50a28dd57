import "server-only";
import { createHash } from "node:crypto";
import type { Redis } from "ioredis";
import { createProducerConnection } from "@evotrainer/queue";
import { env } from "~/env";

// Per account, on top of the per-address limit: an attacker spreading guesses over many
// addresses still gets ten tries per account in a quarter of an hour.
export const ACCOUNT_MAX_FAILURES = 10;
export const ACCOUNT_LOCK_SECONDS = 15 * 60;

const globalForLockout = globalThis as unknown as { evoLockoutRedis?: Promise<Redis> };
function redis(): Promise<Redis> {
  return (globalForLockout.evoLockoutRedis ??= (async () => {
    const connection = createProducerConnection(env.REDIS_URL);
    await connection.connect();
    return connection;
  })().catch((error: unknown) => {
    globalForLockout.evoLockoutRedis = undefined;
    throw error;
  }));
}

// Hashed: the key names an account without writing its address into Redis.
const keyOf = (email: string) => `${env.EVO_QUEUE_PREFIX}:signin-failures:${createHash("sha256").update(email.trim().toLowerCase()).digest("hex")}`;

/** Seconds until the account unlocks, or 0 when it may try. */
export async function lockedForSeconds(email: string): Promise<number> {
  const client = await redis();
  const key = keyOf(email);
  const failures = Number((await client.get(key)) ?? 0);
  if (failures < ACCOUNT_MAX_FAILURES) return 0;
  return Math.max(1, await client.ttl(key));
}

/** A wrong password: counted in a window that starts at the first failure. */
export async function recordFailure(email: string): Promise<void> {
  const client = await redis();
  const key = keyOf(email);
  const [[, count]] = (await client.multi().incr(key).expire(key, ACCOUNT_LOCK_SECONDS, "NX").exec()) as [[unknown, number]];
  // The lock lasts its full time from the failure that set it.
  if (count === ACCOUNT_MAX_FAILURES) await client.expire(key, ACCOUNT_LOCK_SECONDS);
}

/** A successful sign-in or a new password: the count starts over and a lock is lifted. */
export async function clearFailures(email: string): Promise<void> {
  await (await redis()).del(keyOf(email));
}
