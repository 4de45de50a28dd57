import type { Database } from "@evotrainer/db";
import type { Principal } from "./principal.ts";
import { sha256Hex } from "./secret-token.ts";

export const SHARE_TOKEN_HEADER = "x-evo-share-token";
export const API_KEY_PREFIX = "evo";
export const SHARE_TOKEN_PREFIX = "evs";

function apiKeyFrom(headers: Headers): string | null {
  const bearer = headers.get("authorization")?.match(/^Bearer\s+(\S+)$/i)?.[1];
  const key = bearer ?? headers.get("x-api-key");
  return key?.startsWith(`${API_KEY_PREFIX}_`) ? key : null;
}

export async function principalFromApiKey(db: Database, key: string): Promise<Principal | null> {
  const row = await db.apiKey.findUnique({ where: { keyHash: sha256Hex(key) }, select: { id: true, userId: true, enabled: true, expiresAt: true } });
  if (!row?.enabled || (row.expiresAt && row.expiresAt <= new Date())) return null;
  await db.apiKey.update({ where: { id: row.id }, data: { lastUsedAt: new Date() } });
  return { kind: "user", userId: row.userId, via: "api_key" };
}

/** A share link grants read access to its run until it is revoked or expires; anything else is no link at all. */
export async function principalFromShareToken(db: Database, token: string): Promise<Principal | null> {
  const link = await db.shareLink.findUnique({ where: { tokenHash: sha256Hex(token) }, select: { id: true, runId: true, revokedAt: true, expiresAt: true } });
  if (!link || link.revokedAt || (link.expiresAt && link.expiresAt <= new Date())) return null;
  return { kind: "share", runId: link.runId, shareLinkId: link.id };
}

/**
 * API key first (CLI and workers send no cookies), then the browser session, then a share token.
 * A credential that is present but invalid does not fall through to a weaker one.
 */
export async function resolvePrincipal(input: {
  db: Database;
  headers: Headers;
  shareToken: string | null;
  sessionUserId: (headers: Headers) => Promise<string | null>;
}): Promise<Principal | null> {
  const apiKey = apiKeyFrom(input.headers);
  if (apiKey) return principalFromApiKey(input.db, apiKey);
  const userId = await input.sessionUserId(input.headers);
  if (userId) return { kind: "user", userId, via: "session" };
  const shareToken = input.shareToken ?? input.headers.get(SHARE_TOKEN_HEADER);
  if (shareToken) return principalFromShareToken(input.db, shareToken);
  return null;
}
