import { randomBytes, randomUUID } from "node:crypto";
import { notificationFor, type LedgerEvent, type Notification, type WebhookKind } from "@evotrainer/core";
import { z } from "zod";
import type { Database } from "../client.ts";
import type { NotificationDelivery, NotificationWebhook, Prisma } from "../generated/prisma/client.ts";
import { openSecret, sealSecret } from "../secrets/secret-box.ts";

type Tx = Prisma.TransactionClient;

export const webhookInputSchema = z.strictObject({
  name: z.string().trim().min(1, { error: "name: give the webhook a name" }).max(80),
  kind: z.enum(["slack", "generic"]),
  url: z.url({ protocol: /^https?$/, error: "url: an http:// or https:// address" }).max(2_000),
});
export type WebhookInput = z.infer<typeof webhookInputSchema>;

/** A webhook as people and the API see it: its URL's origin only, never the URL or secret. */
export interface WebhookSummary {
  id: string;
  name: string;
  kind: WebhookKind;
  urlOrigin: string;
  signed: boolean;
  enabled: boolean;
  createdAt: Date;
}

/** What the deliverer needs: the opened URL and secret, held in memory only. */
export interface OpenedWebhook {
  id: string;
  kind: WebhookKind;
  url: string;
  secret: string | null;
}

const urlContext = (id: string) => `notification-webhook:${id}:url`;
const secretContext = (id: string) => `notification-webhook:${id}:secret`;

function summarize(row: NotificationWebhook): WebhookSummary {
  return { id: row.id, name: row.name, kind: row.kind, urlOrigin: row.urlOrigin, signed: row.sealedSecret !== null, enabled: row.enabled, createdAt: row.createdAt };
}

/**
 * Seals the URL (Slack's carries its token) and, for generic receivers, a new signing secret.
 * The secret is returned once so the admin can configure the receiver; it is never shown again.
 */
export async function createWebhook(db: Database, organizationId: string, input: WebhookInput, masterKey: Buffer): Promise<{ webhook: WebhookSummary; signingSecret: string | null }> {
  const parsed = webhookInputSchema.parse(input);
  const id = randomUUID();
  const signingSecret = parsed.kind === "generic" ? `whsec_${randomBytes(32).toString("base64url")}` : null;
  const existing = await db.notificationWebhook.findUnique({ where: { organizationId_name: { organizationId, name: parsed.name } } });
  if (existing) throw new Error(`a webhook named "${parsed.name}" already exists in this organization: pick another name or delete it first`);
  const row = await db.notificationWebhook.create({
    data: {
      id,
      organizationId,
      name: parsed.name,
      kind: parsed.kind,
      urlOrigin: new URL(parsed.url).origin,
      sealedUrl: new Uint8Array(sealSecret(parsed.url, masterKey, urlContext(id))),
      sealedSecret: signingSecret ? new Uint8Array(sealSecret(signingSecret, masterKey, secretContext(id))) : null,
    },
  });
  return { webhook: summarize(row), signingSecret };
}

export async function listWebhooks(db: Database, organizationId: string): Promise<WebhookSummary[]> {
  return (await db.notificationWebhook.findMany({ where: { organizationId }, orderBy: { createdAt: "asc" } })).map(summarize);
}

/** Deletes the organization's webhook; false when it has no webhook of that id. */
export async function deleteWebhook(db: Database, organizationId: string, id: string): Promise<boolean> {
  return (await db.notificationWebhook.deleteMany({ where: { id, organizationId } })).count === 1;
}

export async function openWebhook(db: Database, id: string, masterKey: Buffer): Promise<OpenedWebhook | null> {
  const row = await db.notificationWebhook.findUnique({ where: { id } });
  if (!row) return null;
  return {
    id: row.id,
    kind: row.kind,
    url: openSecret(row.sealedUrl, masterKey, urlContext(row.id)),
    secret: row.sealedSecret ? openSecret(row.sealedSecret, masterKey, secretContext(row.id)) : null,
  };
}

/** Writes the event's notification, if it has one, in the event's own transaction. */
export async function enqueueNotification(tx: Tx, event: LedgerEvent): Promise<void> {
  const run = await tx.run.findUniqueOrThrow({ where: { id: event.runId }, select: { organizationId: true, name: true } });
  const branch = event.branchId ? await tx.branch.findUnique({ where: { id: event.branchId }, select: { version: true } }) : null;
  const notification = notificationFor(event, { runName: run.name, branchVersion: branch?.version ?? null });
  if (!notification) return;
  await writeOutbox(tx, run.organizationId, notification);
}

export async function writeOutbox(tx: Tx, organizationId: string, notification: Notification): Promise<string> {
  const row = await tx.notificationOutbox.create({
    data: { organizationId, runId: notification.runId || null, kind: notification.kind, notification: notification as unknown as Prisma.InputJsonObject },
  });
  return row.id;
}

/**
 * Fans unrelayed outbox rows out into one pending delivery per enabled webhook of their organization,
 * and marks them relayed, in one transaction. Returns the deliveries to put on the notify queue.
 */
export async function relayOutbox(db: Database, limit = 100): Promise<string[]> {
  return db.$transaction(async (tx) => {
    const rows = await tx.notificationOutbox.findMany({ where: { relayedAt: null }, orderBy: { createdAt: "asc" }, take: limit });
    const ids: string[] = [];
    for (const row of rows) {
      const claimed = await tx.notificationOutbox.updateMany({ where: { id: row.id, relayedAt: null }, data: { relayedAt: new Date() } });
      if (claimed.count === 0) continue;
      const hooks = await tx.notificationWebhook.findMany({ where: { organizationId: row.organizationId, enabled: true }, select: { id: true } });
      for (const hook of hooks) {
        ids.push((await tx.notificationDelivery.create({ data: { outboxId: row.id, webhookId: hook.id } })).id);
      }
    }
    return ids;
  });
}

/** A test notification to one webhook, written straight as a delivery (it concerns no run). */
export async function createTestDelivery(db: Database, organizationId: string, webhookId: string, notification: Notification): Promise<string | null> {
  return db.$transaction(async (tx) => {
    const hook = await tx.notificationWebhook.findFirst({ where: { id: webhookId, organizationId }, select: { id: true } });
    if (!hook) return null;
    const outboxId = await writeOutbox(tx, organizationId, notification);
    await tx.notificationOutbox.update({ where: { id: outboxId }, data: { relayedAt: new Date() } });
    return (await tx.notificationDelivery.create({ data: { outboxId, webhookId } })).id;
  });
}

export interface DeliveryWork {
  delivery: NotificationDelivery;
  notification: Notification;
  occurredAt: Date;
}

export async function loadDelivery(db: Database, id: string): Promise<DeliveryWork | null> {
  const row = await db.notificationDelivery.findUnique({ where: { id }, include: { outbox: true } });
  if (!row) return null;
  const { outbox, ...delivery } = row;
  return { delivery, notification: outbox.notification as unknown as Notification, occurredAt: outbox.createdAt };
}

export type AttemptResult =
  | { outcome: "delivered"; status: number }
  | { outcome: "retry"; status: number | null; error: string; nextAttemptAt: Date }
  | { outcome: "dead"; status: number | null; error: string };

/** Records one attempt; the attempt counter only moves forward, so a replayed job cannot rewind it. */
export async function recordAttempt(db: Database, id: string, attempt: number, result: AttemptResult): Promise<void> {
  const common = { attempts: attempt, lastStatus: result.status };
  const data =
    result.outcome === "delivered"
      ? { ...common, status: "delivered" as const, lastError: null, nextAttemptAt: null, deliveredAt: new Date() }
      : result.outcome === "retry"
        ? { ...common, status: "pending" as const, lastError: result.error.slice(0, 500), nextAttemptAt: result.nextAttemptAt }
        : { ...common, status: "dead" as const, lastError: result.error.slice(0, 500), nextAttemptAt: null };
  await db.notificationDelivery.updateMany({ where: { id, attempts: { lt: attempt } }, data });
}

/** Deliveries still to attempt, for the sweep that puts their next attempt (back) on the queue. */
export async function pendingDeliveries(db: Database, take = 500): Promise<Pick<NotificationDelivery, "id" | "attempts" | "nextAttemptAt">[]> {
  return db.notificationDelivery.findMany({ where: { status: "pending" }, select: { id: true, attempts: true, nextAttemptAt: true }, orderBy: { createdAt: "asc" }, take });
}

export interface DeliveryLogEntry {
  id: string;
  webhookName: string;
  kind: string;
  summary: string;
  status: "pending" | "delivered" | "dead";
  attempts: number;
  lastStatus: number | null;
  lastError: string | null;
  nextAttemptAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export async function listDeliveries(db: Database, organizationId: string, take = 50): Promise<DeliveryLogEntry[]> {
  const rows = await db.notificationDelivery.findMany({
    where: { webhook: { organizationId } },
    orderBy: { createdAt: "desc" },
    take,
    include: { webhook: { select: { name: true } }, outbox: { select: { kind: true, notification: true } } },
  });
  return rows.map((row) => ({
    id: row.id,
    webhookName: row.webhook.name,
    kind: row.outbox.kind,
    summary: (row.outbox.notification as unknown as Notification).summary,
    status: row.status,
    attempts: row.attempts,
    lastStatus: row.lastStatus,
    lastError: row.lastError,
    nextAttemptAt: row.nextAttemptAt,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  }));
}
