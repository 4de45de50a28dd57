import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { chownSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { once } from "node:events";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";

/** A port nothing listens on now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, "close");
  return port;
}

export interface OwnPostgres {
  /** postgresql://postgres@127.0.0.1:<port>/postgres */
  url: string;
  start(): void;
  /** Fast shutdown: every session ended, as a restart or failover ends them. */
  stop(): void;
  restart(): void;
  remove(): void;
}

/**
 * A PostgreSQL cluster of a test's own (initdb into a temp dir, on a free port), so that it can be
 * stopped and restarted without touching the server every other test shares. Run as the `postgres`
 * user where the tests run as root, since PostgreSQL refuses to run as root.
 */
export async function ownPostgres(): Promise<OwnPostgres> {
  const bin = join("/usr/lib/postgresql", readdirSync("/usr/lib/postgresql").sort().at(-1)!, "bin");
  const dir = mkdtempSync(join(tmpdir(), "evo-own-pg-"));
  const asRoot = userInfo().uid === 0;
  if (asRoot) chownSync(dir, Number(execFileSync("id", ["-u", "postgres"]).toString().trim()), Number(execFileSync("id", ["-g", "postgres"]).toString().trim()));
  const run = (tool: string, args: string[]) => execFileSync(asRoot ? "runuser" : join(bin, tool), asRoot ? ["-u", "postgres", "--", join(bin, tool), ...args] : args, { stdio: "pipe" });
  const port = await freePort();
  const data = join(dir, "data");
  run("initdb", ["-D", data, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-sync"]);
  const ctl = (...args: string[]) => run("pg_ctl", ["-D", data, "-l", join(dir, "server.log"), "-w", ...args]);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
  const postgres: OwnPostgres = {
    url: `postgresql://postgres@127.0.0.1:${port}/postgres`,
    start: () => void ctl("-o", options, "start"),
    stop: () => void ctl("-m", "fast", "stop"),
    restart: () => void ctl("-m", "fast", "-o", options, "restart"),
    remove: () => {
      try {
        ctl("-m", "immediate", "stop");
      } catch {
        // Already stopped.
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
  postgres.start();
  return postgres;
}

export interface OwnRedis {
  url: string;
  /** Starts it empty: it keeps nothing on disk. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** A redis-server of a test's own on a free port, keeping nothing on disk, so a restart comes back empty. */
export async function ownRedis(): Promise<OwnRedis> {
  const port = await freePort();
  let server: ChildProcess | undefined;
  const redis: OwnRedis = {
    url: `redis://127.0.0.1:${port}`,
    async start() {
      const started = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { stdio: ["ignore", "pipe", "inherit"] });
      server = started;
      let said = "";
      // Its log is read to the end of its life: a pipe no one reads would fill and stall it.
      await new Promise<void>((ready, failed) => {
        started.stdout!.on("data", (chunk) => {
          said += String(chunk);
          if (said.includes("Ready to accept connections")) ready();
        });
        started.once("exit", (code) => failed(new Error(`redis-server exited (${code}) before it was ready:\n${said}`)));
      });
    },
    async stop() {
      if (!server || server.exitCode !== null) return;
      const exited = once(server, "exit");
      server.kill("SIGKILL");
      await exited;
    },
  };
  await redis.start();
  return redis;
}
