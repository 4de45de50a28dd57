import { existsSync, statSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ensureLocalAdmin } from "@evotrainer/api";
import { createDatabase } from "@evotrainer/db";
import { applyMigrations, ensureDatabase } from "@evotrainer/db/migrations";
import { startChild, runToEnd, type Child } from "../child.ts";
import { loadCliEnv } from "../env.ts";
import { checkServices } from "../preflight.ts";
import { startDemoRun } from "../demo-run.ts";

const root = fileURLToPath(new URL("../../../..", import.meta.url));
const bin = (name: string) => join(root, "node_modules/.bin", name);

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === "node_modules" || entry.name === ".next" || entry.name === "generated") continue;
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/** The dashboard needs a production build when there is none or the sources changed since. */
function webBuildIsStale(): boolean {
  const buildId = join(root, "apps/web/.next/BUILD_ID");
  if (!existsSync(buildId)) return true;
  const built = statSync(buildId).mtimeMs;
  return (
    statSync(join(root, "prisma/schema.prisma")).mtimeMs > built ||
    ["apps/web/src", "packages/api/src", "packages/db/src", "packages/queue/src"].some((dir) => newestMtime(join(root, dir)) > built)
  );
}

async function waitForHealth(url: string, child: Child, timeoutMs: number): Promise<string | null> {
  const deadline = Date.now() + timeoutMs;
  let last = "no answer yet";
  while (Date.now() < deadline) {
    if (child.process.exitCode !== null) return `the dashboard exited with code ${child.process.exitCode}`;
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(3_000) });
      if (response.ok) return null;
      last = `${response.status} ${await response.text()}`;
    } catch (error) {
      last = (error as Error).message;
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return `no healthy answer from ${url} within ${timeoutMs / 1000} s (last: ${last})`;
}

/**
 * Brings up a working installation: services checked, database migrated, dashboard built,
 * worker and dashboard started. Stays in the foreground until Ctrl-C, unless --exit-when-ready.
 */
export async function quickstart(args: string[]): Promise<number> {
  const exitWhenReady = args.includes("--exit-when-ready");
  const demo = !args.includes("--no-demo");
  const env = loadCliEnv();
  const childEnv = { ...process.env, DATABASE_URL: env.DATABASE_URL, REDIS_URL: env.REDIS_URL, NEXT_TELEMETRY_DISABLED: "1" };

  console.log("quickstart: [1/4] checking PostgreSQL and Redis…");
  const problems = await checkServices(env);
  if (problems.length > 0) {
    for (const problem of problems) console.error(`quickstart: ${problem}`);
    return 1;
  }

  console.log("quickstart: [2/4] migrating the database…");
  if (await ensureDatabase(env.DATABASE_URL)) console.log("quickstart: created the database");
  const applied = await applyMigrations(env.DATABASE_URL, join(root, "prisma/migrations"));
  console.log(applied.length ? `quickstart: applied ${applied.join(", ")}` : "quickstart: database is up to date");

  if (webBuildIsStale()) {
    console.log("quickstart: [3/4] building the dashboard (first run or sources changed; about 30 s)…");
    const code = await runToEnd(bin("next"), ["build"], childEnv, join(root, "apps/web"));
    if (code !== 0) {
      console.error("quickstart: the dashboard build failed; see the errors above.");
      return 1;
    }
  } else {
    console.log("quickstart: [3/4] dashboard build is up to date");
  }

  console.log("quickstart: [4/4] starting the worker and the dashboard…");
  // Notifications deep-link into this dashboard unless the operator named its public address.
  const workerEnv = { EVO_PUBLIC_URL: `http://127.0.0.1:${env.EVO_WEB_PORT}`, ...childEnv };
  const worker = startChild("worker", process.execPath, [join(root, "apps/worker/dist/main.js")], workerEnv);
  // apps/web/server.ts: `next start` behind the boundary that resolves the client's address and scheme.
  const web = startChild("web", bin("tsx"), ["server.ts", "--port", String(env.EVO_WEB_PORT), "--hostname", "127.0.0.1"], childEnv, join(root, "apps/web"));
  const stopAll = () => Promise.all([web.stop(), worker.stop()]);

  const url = `http://127.0.0.1:${env.EVO_WEB_PORT}`;
  const failure = await waitForHealth(`${url}/api/health`, web, 60_000);
  if (failure) {
    console.error(`quickstart: ${failure}`);
    await stopAll();
    return 1;
  }
  const db = createDatabase(env.DATABASE_URL);
  const admin = await ensureLocalAdmin(db);
  console.log(`\n  EvoTrainer is up: ${url}`);
  console.log(`  sign in as ${admin.email} ${admin.password ? `with password ${admin.password}  (shown once: keep it)` : "(its password was printed when it was created)"}`);
  console.log(`  health: ${url}/api/health; Ctrl-C stops the worker and the dashboard\n`);
  const stopDemo = demo ? await startDemoRun(db, env, join(root, "examples/gym-swe.yaml"), url) : () => {};
  if (exitWhenReady) {
    stopDemo();
    await db.$disconnect();
    await stopAll();
    return 0;
  }

  const stopped = new Promise<number>((resolve) => {
    for (const signal of ["SIGINT", "SIGTERM"] as const) {
      process.once(signal, () => {
        console.log("\nquickstart: stopping…");
        stopDemo();
        void stopAll()
          .then(() => db.$disconnect())
          .then(() => resolve(0));
      });
    }
  });
  // A service that dies on its own takes the quickstart down with it, loudly.
  const crashed = Promise.race([worker.exited.then((c) => ["worker", c] as const), web.exited.then((c) => ["web", c] as const)]).then(
    async ([name, code]) => {
      console.error(`quickstart: the ${name} exited with code ${code}; stopping.`);
      await stopAll();
      return 1;
    },
  );
  return Promise.race([stopped, crashed]);
}
