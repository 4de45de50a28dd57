// npm run test:e2e — a fresh database for the run, Playwright against the real quickstart, then cleanup.
import { spawnSync } from "node:child_process";
import { createTestDatabase } from "@evotrainer/db/testing";
import { deleteKeys, nameTestRun, testPrefix } from "../support/redis-prefix.ts";
import { DEFAULT_REDIS_URL } from "@evotrainer/queue";

// The specs spawn the built CLI; the quickstart would build it too, but only once Playwright started it.
const build = spawnSync(process.execPath, ["scripts/build-programs.mjs"], { stdio: "inherit" });
if (build.status !== 0) process.exit(build.status ?? 1);
const database = await createTestDatabase();
const redisUrl = process.env.REDIS_URL ?? DEFAULT_REDIS_URL;
nameTestRun();
const prefix = testPrefix();
let status = 1;
try {
  const result = spawnSync("node_modules/.bin/playwright", ["test", ...process.argv.slice(2)], {
    stdio: "inherit",
    // 127.0.0.2 is the one proxy the server trusts: security.spec.ts sends through it as a proxy would.
    env: { ...process.env, DATABASE_URL: database.url, REDIS_URL: redisUrl, EVO_QUEUE_PREFIX: prefix, EVO_TRUSTED_PROXIES: "127.0.0.2",
      // Every spec signs its people in from 127.0.0.1; the limit itself is tested from other addresses.
      EVO_SIGNINS_PER_MINUTE: "100",
      // The specs' webhook receivers listen on this one loopback address, as an on-premises receiver would be allowed.
      EVO_WEBHOOK_ALLOW_CIDRS: "127.0.0.5/32" },
  });
  status = result.status ?? 1;
} finally {
  await database.drop();
  await deleteKeys(redisUrl, `${prefix}:*`);
}
process.exit(status);
