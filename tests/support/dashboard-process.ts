import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { resolve } from "node:path";
import { freePort } from "./own-services.ts";

export interface DashboardProcess {
  process: ChildProcess;
  baseURL: string;
  /** SIGTERM, as an orchestrator stops it, and waits until it is gone. */
  stop(): Promise<void>;
}

/** The built dashboard's own server (apps/web/server.ts) over the given services, once it listens. */
export async function startDashboard(env: { DATABASE_URL: string; REDIS_URL: string; EVO_QUEUE_PREFIX: string }): Promise<DashboardProcess> {
  const port = await freePort();
  const server = spawn(resolve("node_modules/.bin/tsx"), ["server.ts", "--port", String(port), "--hostname", "127.0.0.1"], {
    cwd: resolve("apps/web"),
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let said = "";
  await new Promise<void>((ready, failed) => {
    server.stdout!.on("data", (chunk) => {
      said += String(chunk);
      if (said.includes("EvoTrainer dashboard on")) ready();
    });
    server.once("exit", (code) => failed(new Error(`the dashboard exited (${code}) before it listened:\n${said}`)));
  });
  return {
    process: server,
    baseURL: `http://127.0.0.1:${port}`,
    async stop() {
      if (server.exitCode !== null || server.signalCode !== null) return;
      const exited = once(server, "exit");
      server.kill("SIGTERM");
      await exited;
    },
  };
}
