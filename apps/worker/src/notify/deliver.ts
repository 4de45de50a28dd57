import { createHmac } from "node:crypto";
import { afterFailedAttempt, deliveredOk, SIGNATURE_HEADER, signatureHeaderValue, signedString, webhookBody } from "@evotrainer/core";
import { loadDelivery, openWebhook, recordAttempt, type Database } from "@evotrainer/db";
import { QueueName, type Payload, type Producer } from "@evotrainer/queue";

export interface DeliverDeps {
  db: Database;
  producer: Producer;
  masterKey: Buffer;
  publicUrl: string;
  retryBaseMs: number;
}

const TIMEOUT_MS = 10_000;

/**
 * One delivery attempt: POST the body, record the answer, and schedule the next attempt by the core
 * schedule, or give up. Errors never name the URL: a Slack URL is its own credential.
 */
export async function deliver(deps: DeliverDeps, { deliveryId, attempt }: Payload<typeof QueueName.Notify>): Promise<string> {
  const work = await loadDelivery(deps.db, deliveryId);
  if (!work || work.delivery.status !== "pending" || work.delivery.attempts >= attempt) return "already settled";
  const hook = await openWebhook(deps.db, work.delivery.webhookId, deps.masterKey);
  if (!hook) return "webhook deleted";
  const body = webhookBody(hook.kind, work.notification, deps.publicUrl, work.delivery.outboxId, work.occurredAt.toISOString());
  const headers: Record<string, string> = { "content-type": "application/json", "user-agent": "EvoTrainer-Webhooks/1" };
  if (hook.secret) {
    const t = Math.floor(Date.now() / 1000);
    headers[SIGNATURE_HEADER] = signatureHeaderValue(t, createHmac("sha256", hook.secret).update(signedString(t, body)).digest("hex"));
  }
  let status: number | null = null;
  let error = "";
  try {
    const response = await fetch(hook.url, { method: "POST", headers, body, redirect: "manual", signal: AbortSignal.timeout(TIMEOUT_MS) });
    status = response.status;
    const text = await response.text().catch(() => "");
    if (!deliveredOk(status)) error = `receiver answered HTTP ${status}${text ? `: ${text.slice(0, 200)}` : ""}`;
  } catch (cause) {
    const reason = cause instanceof Error ? ((cause.cause as { code?: string } | undefined)?.code ?? cause.name) : String(cause);
    error = `could not reach ${new URL(hook.url).origin} (${reason})`;
  }
  if (status !== null && deliveredOk(status)) {
    await recordAttempt(deps.db, deliveryId, attempt, { outcome: "delivered", status });
    return `delivered (HTTP ${status})`;
  }
  const next = afterFailedAttempt(attempt, deps.retryBaseMs);
  if (next.outcome === "dead") {
    await recordAttempt(deps.db, deliveryId, attempt, { outcome: "dead", status, error });
    return `dead after ${attempt} attempts: ${error}`;
  }
  await recordAttempt(deps.db, deliveryId, attempt, { outcome: "retry", status, error, nextAttemptAt: new Date(Date.now() + next.delayMs) });
  await deps.producer.enqueue(QueueName.Notify, { deliveryId, attempt: attempt + 1 }, { delay: next.delayMs });
  return `retrying in ${next.delayMs} ms: ${error}`;
}
