import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { serverAddress } from "@evotrainer/core";
import { pingPostgres, type ServiceCheck } from "@evotrainer/db";
import { pingRedis } from "@evotrainer/queue";

// An orchestrator's probe gives up after its own timeout (Kubernetes: 1 s by default); the answer must
// come before it does, or a slow service reads as a dead worker.
const PROBE_TIMEOUT_MS = 1_000;

export interface HealthServerOptions {
  databaseUrl: string;
  redisUrl: string;
  port: number;
  host: string;
}

export interface HealthServer {
  /** Where it listens, the port resolved when 0 was asked for. */
  url: string;
  close(): Promise<void>;
}

export interface Health {
  status: "ok" | "unavailable";
  postgres: "up" | "down";
  redis: "up" | "down";
  reason?: string;
}

/** Asks both services afresh: a probe must see an outage the worker's idle connections have not noticed yet. */
export async function checkHealth(databaseUrl: string, redisUrl: string): Promise<Health> {
  const [postgres, redis] = await Promise.all([pingPostgres(databaseUrl, PROBE_TIMEOUT_MS), pingRedis(redisUrl, PROBE_TIMEOUT_MS)]);
  const down = (service: string, url: string, check: ServiceCheck) => (check.ok ? [] : [`${service} at ${serverAddress(url)} is unreachable: ${check.reason ?? "no answer"}`]);
  const reasons = [...down("PostgreSQL", databaseUrl, postgres), ...down("Redis", redisUrl, redis)];
  return {
    status: reasons.length === 0 ? "ok" : "unavailable",
    postgres: postgres.ok ? "up" : "down",
    redis: redis.ok ? "up" : "down",
    ...(reasons.length > 0 ? { reason: reasons.join("; ") } : {}),
  };
}

/**
 * `GET /health`: 200 while PostgreSQL and Redis both answer, 503 naming the one that does not. The worker
 * itself keeps running through an outage, so this says whether it can make progress, not whether it is alive.
 */
export function startHealthServer(options: HealthServerOptions): Promise<HealthServer> {
  const server = createServer((request, response) => {
    const send = (status: number, body: unknown) => {
      response.writeHead(status, { "Content-Type": "application/json", "Cache-Control": "no-store" });
      response.end(JSON.stringify(body));
    };
    const path = new URL(request.url ?? "/", "http://health").pathname;
    if (path !== "/health") return send(404, { error: "not found: the worker serves GET /health only" });
    if (request.method !== "GET" && request.method !== "HEAD") return send(405, { error: "GET /health" });
    checkHealth(options.databaseUrl, options.redisUrl).then(
      (health) => send(health.status === "ok" ? 200 : 503, health),
      // The pings report failures rather than throw; anything else is still an answer, not a crash.
      (error: unknown) => send(503, { status: "unavailable", reason: `health check failed: ${error instanceof Error ? error.message : String(error)}` }),
    );
  });
  return listen(server, options);
}

function listen(server: Server, options: HealthServerOptions): Promise<HealthServer> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => {
      server.off("error", reject);
      const { address, port } = server.address() as AddressInfo;
      const host = address.includes(":") ? `[${address}]` : address;
      resolve({
        url: `http://${host}:${port}/health`,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            // A probe's keep-alive connection would hold close() open until it times out.
            server.closeAllConnections();
          }),
      });
    });
  });
}
