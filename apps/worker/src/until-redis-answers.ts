import type { ServiceStatus } from "@evotrainer/core";
import { whileUnreachable } from "@evotrainer/db/connection";
import { pingRedis } from "@evotrainer/queue";

/**
 * Resolves once Redis at `redisUrl` answers a PING, saying on `status` while it does not (once) and when
 * it does again. A worker started before Redis (a node booting, a failover under way) waits for it
 * instead of exiting; any other failure (a wrong password) ends the wait and is the caller's to report.
 */
export async function untilRedisAnswers(redisUrl: string, status: ServiceStatus): Promise<void> {
  await whileUnreachable(status, async () => {
    const check = await pingRedis(redisUrl);
    if (!check.ok) throw check.cause;
  });
}
