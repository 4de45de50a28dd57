export * from "./client.ts";
export * from "./env.ts";
export * from "./generated/prisma/client.ts";
export * from "./ping.ts";
export * from "./repositories/index.ts";
export { masterKeyOrLocal } from "./secrets/local-master-key.ts";
export { systemResolver, webhookAllowList, webhookTarget, type ResolveHost, type WebhookTarget } from "./webhooks/webhook-target.ts";
export * from "./search/index.ts";
export * from "./connection/index.ts";
