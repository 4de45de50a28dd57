import { createHash, randomBytes } from "node:crypto";
import type { Redis } from "ioredis";
import { admitPasswordAttempt, clientKey, PASSWORD_LIMITS, type PasswordDoor, type PasswordFailure, type PasswordLimits } from "@evotrainer/core";

/**
 * Which wrong passwords hold a client back from an account; the rules are core's `admitPasswordAttempt`.
 * `address` is the client's IP address, counted as core's `clientKey` says.
 */
export interface PasswordGuard {
  /** Seconds `client` waits before it may try a password for the account through `door`; 0 when it may now. */
  waitSeconds(email: string, address: string, door: PasswordDoor): Promise<number>;
  recordFailure(email: string, address: string, door: PasswordDoor): Promise<void>;
  /** The right password: the client becomes one the account knows, and its own failures are forgotten. */
  recordSuccess(email: string, address: string): Promise<void>;
  /** A new password: every failure for the account is forgotten. */
  passwordSet(email: string): Promise<void>;
}

/** Without the web app's guard (the CLI, tests), no client is held back and nothing is counted. */
export const NO_PASSWORD_GUARD: PasswordGuard = { waitSeconds: async () => 0, recordFailure: async () => {}, recordSuccess: async () => {}, passwordSet: async () => {} };

// Bounds on what a stranger can make Redis keep for one account.
const MAX_FAILURES_KEPT = 1000;
const MAX_KNOWN_CLIENTS = 50;
const KNOWN_CLIENT_DAYS = 90;

/**
 * The guard over Redis: per account (its email hashed, so no email is written to Redis), a sorted set
 * of recent failures, kept for the window, and one of the clients that signed in with its password,
 * kept for 90 days.
 */
export function redisPasswordGuard(redis: () => Promise<Redis>, prefix: string, limits: PasswordLimits = PASSWORD_LIMITS, now: () => number = Date.now): PasswordGuard {
  const account = (email: string) => `${prefix}:password:${createHash("sha256").update(email.trim().toLowerCase()).digest("hex")}`;
  const failuresKey = (email: string) => `${account(email)}:failures`;
  const knownKey = (email: string) => `${account(email)}:clients`;
  const windowMs = limits.windowSeconds * 1000;

  async function failures(client: Redis, email: string): Promise<PasswordFailure[]> {
    const entries = await client.zrangebyscore(failuresKey(email), now() - windowMs, "+inf");
    return entries.map((entry) => JSON.parse(entry) as PasswordFailure);
  }

  return {
    async waitSeconds(email, address, door) {
      const client = await redis();
      const knownSince = now() - KNOWN_CLIENT_DAYS * 86_400_000;
      const [recent, knownClients] = await Promise.all([failures(client, email), client.zrangebyscore(knownKey(email), knownSince, "+inf")]);
      const admission = admitPasswordAttempt({ failures: recent, knownClients, client: clientKey(address), door, now: now() }, limits);
      return admission.outcome === "allowed" ? 0 : admission.retryAfterSeconds;
    },
    async recordFailure(email, address, door) {
      const at = now();
      const key = failuresKey(email);
      // The nonce keeps two failures in the same millisecond from the same client apart.
      const entry = JSON.stringify({ client: clientKey(address), door, at, nonce: randomBytes(4).toString("hex") });
      await (await redis())
        .multi()
        .zadd(key, at, entry)
        .zremrangebyscore(key, "-inf", at - windowMs)
        .zremrangebyrank(key, 0, -MAX_FAILURES_KEPT - 1)
        .pexpire(key, windowMs)
        .exec();
    },
    async recordSuccess(email, address) {
      const client = await redis();
      const clientAddress = clientKey(address);
      const key = failuresKey(email);
      const own = (await client.zrange(key, "0", "-1")).filter((entry) => (JSON.parse(entry) as PasswordFailure).client === clientAddress);
      const multi = client.multi().zadd(knownKey(email), now(), clientAddress).zremrangebyrank(knownKey(email), 0, -MAX_KNOWN_CLIENTS - 1).pexpire(knownKey(email), KNOWN_CLIENT_DAYS * 86_400_000);
      if (own.length > 0) multi.zrem(key, ...own);
      await multi.exec();
    },
    async passwordSet(email) {
      await (await redis()).del(failuresKey(email));
    },
  };
}
