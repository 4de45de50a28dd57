import type { Notification } from "./notification.ts";

export type WebhookKind = "slack" | "generic";

function link(baseUrl: string, path: string): string {
  return `${baseUrl.replace(/\/+$/, "")}${path}`;
}

/** Slack-compatible incoming webhook body: text with a `<url|label>` deep link. */
export function slackBody(notification: Notification, baseUrl: string): { text: string } {
  return { text: `${notification.summary} <${link(baseUrl, notification.path)}|Open in EvoTrainer>` };
}

export interface GenericBody {
  id: string;
  kind: Notification["kind"];
  runId: string;
  branchId: string | null;
  summary: string;
  url: string;
  occurredAt: string;
}

/** Generic JSON body; `id` is the outbox id, stable across retries so receivers can deduplicate. */
export function genericBody(notification: Notification, baseUrl: string, id: string, occurredAt: string): GenericBody {
  return {
    id,
    kind: notification.kind,
    runId: notification.runId,
    branchId: notification.branchId,
    summary: notification.summary,
    url: link(baseUrl, notification.path),
    occurredAt,
  };
}

/** The exact request body for a webhook of this kind. */
export function webhookBody(kind: WebhookKind, notification: Notification, baseUrl: string, id: string, occurredAt: string): string {
  return JSON.stringify(kind === "slack" ? slackBody(notification, baseUrl) : genericBody(notification, baseUrl, id, occurredAt));
}
