export { notificationFor, type Notification, type NotificationNames, type NotificationKind, type LedgerEvent } from "./notification.ts";
export { slackBody, genericBody, webhookBody, type WebhookKind, type GenericBody } from "./payloads.ts";
export { afterFailedAttempt, deliveredOk, NOTIFY_MAX_ATTEMPTS, NOTIFY_BASE_DELAY_MS, type AfterFailure } from "./retry-schedule.ts";
export { SIGNATURE_HEADER, signedString, signatureHeaderValue, parseSignatureHeader } from "./signature.ts";
export { addressRefusal, parseAllowedCidrs, parseCidr, parseIpAddress, webhookHost, type Cidr, type IpAddress, type WebhookHost } from "./webhook-address.ts";
