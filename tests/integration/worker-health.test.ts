import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import { createTestDatabase } from "@evotrainer/db/testing";
import { startHealthServer, type HealthServer } from "../../apps/worker/src/health-server.ts";
import { WORKER } from "../support/cli.ts";
import { closedPort, outputUntil } from "../support/child-output.ts";
import { deleteKeys, testPrefix } from "../support/redis-prefix.ts";

const redisUrl = inject("redisUrl");
// The built worker below runs a reconcile sweep: on a database of its own, it drives no other file's runs.
const database = await createTestDatabase(inject("databaseUrl"));
const prefix = testPrefix();
const jobsDir = mkdtempSync(join(tmpdir(), "evo-worker-health-"));

async function probe(url: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(url);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function withServer<T>(databaseUrl: string, use: (server: HealthServer) => Promise<T>): Promise<T> {
  // Resolves once listening: the probe below needs no wait of its own.
  const server = await startHealthServer({ databaseUrl, redisUrl, port: 0, host: "127.0.0.1" });
  try {
    return await use(server);
  } finally {
    await server.close();
  }
}

describe("the worker's health endpoint", () => {
  afterAll(async () => {
    await deleteKeys(redisUrl, `${prefix}:*`);
    await database.drop();
    rmSync(jobsDir, { recursive: true, force: true });
  });

  it("answers 503 naming PostgreSQL while nothing listens at its address, Redis up", async () => {
    const port = await closedPort();
    await withServer(`postgresql://postgres@127.0.0.1:${port}/evotrainer`, async (server) => {
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/health$/);
      const { status, body } = await probe(server.url);
      expect(status).toBe(503);
      expect(body).toEqual({ status: "unavailable", postgres: "down", redis: "up", reason: expect.stringMatching(new RegExp(`^PostgreSQL at 127\\.0\\.0\\.1:${port} is unreachable: .*ECONNREFUSED`)) });
    });
  });

  it("answers 200 when both services answer, and 404 off its one path", async () => {
    await withServer(database.url, async (server) => {
      expect(await probe(server.url)).toEqual({ status: 200, body: { status: "ok", postgres: "up", redis: "up" } });
      expect((await probe(server.url.replace("/health", "/metrics"))).status).toBe(404);
    });
  });

  it("is served by the built worker on EVO_WORKER_HEALTH_PORT, which says where", async () => {
    const worker = spawn(process.execPath, [WORKER], {
      env: { ...process.env, DATABASE_URL: database.url, REDIS_URL: redisUrl, EVO_QUEUE_PREFIX: prefix, EVO_JOBS_DIR: jobsDir, EVO_WORKER_HEALTH_PORT: "0" },
    });
    const exited = new Promise((resolve) => worker.once("exit", resolve));
    try {
      const said = await outputUntil(worker, /worker: health at (http:\S+)/);
      const url = said.match(/worker: health at (http:\S+)/)![1]!;
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/health$/);
      expect(await probe(url)).toEqual({ status: 200, body: { status: "ok", postgres: "up", redis: "up" } });
    } finally {
      worker.kill("SIGTERM");
      await exited;
    }
  });
});
