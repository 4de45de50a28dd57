import { execFileSync } from "node:child_process";
import type { TestProject } from "vitest/node";
import { DEFAULT_REDIS_URL } from "@evotrainer/queue";
import { createTestDatabase } from "@evotrainer/db/testing";
import { countKeys, nameTestRun } from "../support/redis-prefix.ts";

declare module "vitest" {
  export interface ProvidedContext {
    databaseUrl: string;
    redisUrl: string;
  }
}

/**
 * One fresh, migrated database for the whole integration run, dropped at the end. Teardown also
 * fails the run if any test file left Redis keys behind. The CLI and the worker the tests spawn are
 * built first where a source changed since their last build.
 */
export default async function setup(project: TestProject) {
  execFileSync(process.execPath, ["scripts/build-programs.mjs"], { stdio: "inherit" });
  const prefixRoot = nameTestRun();
  const database = await createTestDatabase();
  const redisUrl = process.env.REDIS_URL ?? DEFAULT_REDIS_URL;
  project.provide("databaseUrl", database.url);
  project.provide("redisUrl", redisUrl);
  return async () => {
    await database.drop();
    const leftover = await countKeys(redisUrl, `${prefixRoot}-*`);
    if (leftover > 0) throw new Error(`integration tests left ${leftover} Redis keys under ${prefixRoot}-*`);
  };
}
