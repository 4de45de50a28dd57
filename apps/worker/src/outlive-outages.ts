import { setTimeout as wait } from "node:timers/promises";
import { isServiceUnavailable, type ServiceStatus } from "@evotrainer/core";
import { untilPostgresAnswers } from "@evotrainer/db/connection";
import { untilRedisAnswers } from "./until-redis-answers.ts";

const FIRST_WAIT_MS = 250;
const LONGEST_WAIT_MS = 5_000;

export interface Services {
  databaseUrl: string;
  postgres: ServiceStatus;
  redisUrl: string;
  redis: ServiceStatus;
}

/**
 * Runs a loop step again, in place, each time it fails because PostgreSQL or Redis went away, once
 * the one that went answers again (each outage said once, on its own status). Counted as a failed
 * attempt instead, a step would spend its retries on an outage and fail for good on a longer one,
 * logging each try. Every step is safe to run again: the chaos test kills the worker inside each.
 */
export async function outliveOutages<T>(services: Services, step: () => Promise<T>): Promise<T> {
  for (let outages = 0; ; outages++) {
    try {
      return await step();
    } catch (error) {
      if (!isServiceUnavailable(error)) throw error;
      await Promise.all([untilPostgresAnswers(services.databaseUrl, services.postgres), untilRedisAnswers(services.redisUrl, services.redis)]);
      // A server that takes a ping but not the step's work (too many connections) is not hammered.
      await wait(Math.min(FIRST_WAIT_MS * 2 ** outages, LONGEST_WAIT_MS));
    }
  }
}
