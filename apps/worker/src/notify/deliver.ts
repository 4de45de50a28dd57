import { createHmac } from "node:crypto";
import { type Cidr, afterFailedAttempt, deliveredOk, SIGNATURE_HEADER, signatureHeaderValue, signedString, webhookBody } from "@evotrainer/core";
import { loadDelivery, openWebhook, recordAttempt, webhookTarget, type Database, type ResolveHost } from "@evotrainer/db";
import { QueueName, type Payload, type Producer } from "@evotrainer/queue";
import { postPinned } from "./post-pinned.ts";

export interface DeliverDeps {
  db: Database;
  producer: Producer;
  masterKey: Buffer;
  publicUrl: string;
  retryBaseMs: number;
  /** EVO_WEBHOOK_ALLOW_CIDRS, read once at start so a bad value stops the worker there. */
  allowed: readonly Cidr[];
  /** Tests answer host names themselves; the system resolver otherwise. */
  resolve?: ResolveHost;
}

/**
 * What the delivery log keeps of a failure: a status code and one of these, never the receiver's
 * words. An open port answering garbage, a closed one and a slow one read alike, so the log cannot
 * map a network; an address refused by policy is never connected to at all.
 */
export const DELIVERY_ERRORS = {
  refused: "not sent: the address is not one webhooks may reach (see EVO_WEBHOOK_ALLOW_CIDRS)",
  unreachable: "no HTTP answer from the receiver",
  status: "the receiver answered with an error status",
} as const;

const TIMEOUT_MS = 10_000;

/**
 * One delivery attempt: check the address, POST the body to it, record the answer, and schedule the
 * next attempt by the core schedule, or give up. Errors never name the URL: a Slack URL is its own credential.
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
  // Checked at every attempt, not only when the webhook was made: what a name resolves to changes.
  const target = await webhookTarget(hook.url, { allowed: deps.allowed, ...(deps.resolve ? { resolve: deps.resolve } : {}) });
  if (target.outcome === "refused") error = DELIVERY_ERRORS.refused;
  else {
    try {
      status = await postPinned(hook.url, target, headers, body, TIMEOUT_MS);
      if (!deliveredOk(status)) error = DELIVERY_ERRORS.status;
    } catch {
      error = DELIVERY_ERRORS.unreachable;
    }
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
