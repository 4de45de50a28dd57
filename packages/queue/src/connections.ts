import { Redis } from "ioredis";

/**
 * For code that enqueues on behalf of a request (web, CLI): fail fast instead of queueing
 * commands while Redis is away, so the caller can answer "Redis is unreachable" at once.
 */
export function createProducerConnection(redisUrl: string): Redis {
  return new Redis(redisUrl, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2_000,
    lazyConnect: true,
  });
}

/** For BullMQ workers: wait for Redis however long it takes (BullMQ requires maxRetriesPerRequest: null). */
export function createWorkerConnection(redisUrl: string): Redis {
  return new Redis(redisUrl, {
    maxRetriesPerRequest: null,
    retryStrategy: (attempt) => Math.min(attempt * 500, 5_000),
  });
}
