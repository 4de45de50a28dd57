import "server-only";
import { redisPasswordGuard, type PasswordGuard } from "@evotrainer/api";
import { createProducerConnection } from "@evotrainer/queue";
import { env } from "~/env";

type Redis = ReturnType<typeof createProducerConnection>;

const globalForGuard = globalThis as unknown as { evoPasswordRedis?: Promise<Redis>; evoPasswordGuard?: PasswordGuard };

function redis(): Promise<Redis> {
  return (globalForGuard.evoPasswordRedis ??= (async () => {
    const connection = createProducerConnection(env.REDIS_URL);
    await connection.connect();
    return connection;
  })().catch((error: unknown) => {
    globalForGuard.evoPasswordRedis = undefined;
    throw error;
  }));
}

/** The dashboard's one guard, for the sign-in page and the tRPC procedures that check a password. */
export const passwordGuard: PasswordGuard = (globalForGuard.evoPasswordGuard ??= redisPasswordGuard(redis, env.EVO_QUEUE_PREFIX));
