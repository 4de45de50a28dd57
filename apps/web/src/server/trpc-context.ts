import "server-only";
import { createContext } from "@evotrainer/api";
import { trainerArgsWaits } from "@evotrainer/queue";
import { env } from "~/env";
import { sessionUserId } from "./auth";
import { db, ingestPool } from "./db";
import { passwordGuard } from "./password-guard";
import { getProducer } from "./producer";

const waits = trainerArgsWaits(env);

export function contextFor(headers: Headers, shareToken: string | null = null, requestId?: string) {
  return createContext({ db, headers, sessionUserId, producer: getProducer, shareToken, requestId, passwordGuard, ingestPool, trainerArgsWaits: waits });
}
