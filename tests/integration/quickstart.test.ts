import { spawnSync } from "node:child_process";
import { describe, expect, inject, it } from "vitest";

function quickstart(env: Record<string, string>) {
  return spawnSync("node", ["scripts/quickstart.mjs", "--exit-when-ready"], {
    env: { ...process.env, DATABASE_URL: inject("databaseUrl"), REDIS_URL: inject("redisUrl"), ...env },
    encoding: "utf8",
    timeout: 60_000,
  });
}

describe("quickstart preflight", () => {
  it("stops with a clear message naming Redis and the fix when Redis is unreachable", () => {
    const result = quickstart({ REDIS_URL: "redis://127.0.0.1:6399" });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/Redis is unreachable at redis:\/\/127\.0\.0\.1:6399/);
    expect(result.stderr).toMatch(/redis-server --daemonize yes.*docker compose up -d redis.*REDIS_URL/);
    expect(result.stderr).not.toMatch(/PostgreSQL is unreachable/);
  });

  it("stops with a clear message naming PostgreSQL and the fix when PostgreSQL is unreachable", () => {
    const result = quickstart({ DATABASE_URL: "postgresql://postgres@127.0.0.1:5499/evotrainer" });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/PostgreSQL is unreachable at postgresql:\/\/postgres@127\.0\.0\.1:5499/);
    expect(result.stderr).toMatch(/pg_ctlcluster.*docker compose up -d postgres.*DATABASE_URL/);
  });

  it("rejects a malformed setting before touching any service", () => {
    const result = quickstart({ DATABASE_URL: "mysql://root@127.0.0.1/x" });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/DATABASE_URL must be a postgresql:\/\/ connection string/);
  });
});
