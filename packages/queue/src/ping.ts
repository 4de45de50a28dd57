import { Redis } from "ioredis";

export interface ServiceCheck {
  ok: boolean;
  /** What went wrong and how to fix it; absent when ok. */
  error?: string;
  /** The driver's own words for what went wrong (ECONNREFUSED…), for a one-line status; absent when ok. */
  reason?: string;
  /** The driver's error itself, for a caller that decides by its code whether to wait; absent when ok. */
  cause?: unknown;
}

/** Sends PING over a fresh fail-fast connection and says how to fix a failure. */
export async function pingRedis(redisUrl: string, timeoutMs = 2_000): Promise<ServiceCheck> {
  const redis = new Redis(redisUrl, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: timeoutMs,
    retryStrategy: () => null,
  });
  // The socket error (ECONNREFUSED, ENOTFOUND…) arrives as an event; the rejected promise only says "Connection is closed".
  let socketError: Error | undefined;
  redis.on("error", (error: Error) => {
    socketError ??= error;
  });
  try {
    await redis.connect();
    await redis.ping();
    return { ok: true };
  } catch (error) {
    const cause = socketError ?? error;
    const reason = cause instanceof Error ? cause.message || cause.name : String(cause);
    return {
      ok: false,
      reason,
      cause,
      error:
        `Redis is unreachable at ${redisUrl} (${reason}). ` +
        'Start it with `redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no`, ' +
        "or `docker compose up -d redis`, or point REDIS_URL at a running server.",
    };
  } finally {
    redis.disconnect();
  }
}
