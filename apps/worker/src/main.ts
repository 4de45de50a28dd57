import { loadWorkerEnv } from "./env.ts";
import { startHealthServer } from "./health-server.ts";
import { proposerFactory } from "./loop/proposer-factory.ts";
import { startWorkerApp } from "./worker-app.ts";

const env = (() => {
  try {
    return loadWorkerEnv();
  } catch (error) {
    console.error((error as Error).message);
    process.exit(2);
  }
})();

// Listening before the app starts: a probe during start-up gets the services' state, not a refused connection.
const health = await (async () => {
  if (env.EVO_WORKER_HEALTH_PORT === undefined) return undefined;
  const where = `${env.EVO_WORKER_HEALTH_HOST}:${env.EVO_WORKER_HEALTH_PORT}`;
  try {
    const server = await startHealthServer({ databaseUrl: env.DATABASE_URL, redisUrl: env.REDIS_URL, port: env.EVO_WORKER_HEALTH_PORT, host: env.EVO_WORKER_HEALTH_HOST });
    console.log(`worker: health at ${server.url}`);
    return server;
  } catch (error) {
    console.error(`worker: cannot serve health at ${where} (${(error as Error).message}); set EVO_WORKER_HEALTH_PORT to a free port`);
    process.exit(2);
  }
})();

// EVO_LLM_* (the API key included) are read from the process environment only.
const app = await startWorkerApp(env, proposerFactory(process.env));

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    console.log(`worker: ${signal}, finishing running jobs…`);
    Promise.all([app.shutdown(), health?.close()]).then(
      () => process.exit(0),
      (error: unknown) => {
        console.error("worker: shutdown failed", error);
        process.exit(1);
      },
    );
  });
}
