import { pendingDeliveries, relayOutbox, type Database } from "@evotrainer/db";
import { QueueName, type Producer } from "@evotrainer/queue";

/**
 * Fans new outbox rows out into deliveries and puts every pending delivery's next attempt on the
 * notify queue. Attempts are deduplicated by (delivery, attempt), so a sweep that finds one already
 * waiting changes nothing, and one lost with Redis is put back.
 */
export async function relayNotifications(db: Database, producer: Producer, now = Date.now()): Promise<number> {
  await relayOutbox(db);
  const pending = await pendingDeliveries(db);
  for (const delivery of pending) {
    const delay = Math.max(0, (delivery.nextAttemptAt?.getTime() ?? now) - now);
    await producer.enqueue(QueueName.Notify, { deliveryId: delivery.id, attempt: delivery.attempts + 1 }, { delay });
  }
  return pending.length;
}
