import { loadWorkerEnv } from "./env.ts";
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

// EVO_LLM_* (the API key included) are read from the process environment only.
const app = await startWorkerApp(env, proposerFactory(process.env));

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    console.log(`worker: ${signal}, finishing running jobs…`);
    app.shutdown().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error("worker: shutdown failed", error);
        process.exit(1);
      },
    );
  });
}
