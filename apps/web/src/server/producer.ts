import "server-only";
import { createProducerConnection, Producer } from "@evotrainer/queue";
import { env } from "~/env";

// One producer per server process, opened by the first request that enqueues.
const globalForProducer = globalThis as unknown as { evoProducer?: Producer };
export function getProducer(): Producer {
  if (!globalForProducer.evoProducer) {
    const connection = createProducerConnection(env.REDIS_URL);
    // A failed connect surfaces as a failed enqueue, which the caller handles.
    connection.connect().catch(() => undefined);
    globalForProducer.evoProducer = new Producer(connection, env.EVO_QUEUE_PREFIX);
  }
  return globalForProducer.evoProducer;
}
