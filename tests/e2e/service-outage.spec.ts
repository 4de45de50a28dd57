import type { ChildProcess } from "node:child_process";
import { expect, test } from "@playwright/test";
import { createDatabase, type Database } from "@evotrainer/db";
import { createTestDatabase, type TestDatabase } from "@evotrainer/db/testing";
import { seedDashboard } from "../support/dashboard-seed.ts";
import { startDashboard, type DashboardProcess } from "../support/dashboard-process.ts";
import { ownPostgres, ownRedis, type OwnPostgres, type OwnRedis } from "../support/own-services.ts";
import { testPrefix } from "../support/redis-prefix.ts";
import { signIn } from "./sign-in.ts";

// A second dashboard server over a PostgreSQL cluster and a redis-server of this spec's own, so that
// stopping them touches neither the quickstart's server nor any other spec.
let postgres: OwnPostgres;
let redis: OwnRedis;
let database: TestDatabase;
let db: Database;
let dashboard: DashboardProcess;
let server: ChildProcess;
let baseURL: string;
let seed: Awaited<ReturnType<typeof seedDashboard>>;

test.beforeAll(async () => {
  postgres = await ownPostgres();
  redis = await ownRedis();
  database = await createTestDatabase(postgres.url);
  db = createDatabase(database.url);
  seed = await seedDashboard(db, "outage");
  dashboard = await startDashboard({ DATABASE_URL: database.url, REDIS_URL: redis.url, EVO_QUEUE_PREFIX: testPrefix() });
  server = dashboard.process;
  baseURL = dashboard.baseURL;
});

test.afterAll(async () => {
  await dashboard.stop();
  await db.$disconnect();
  postgres.remove();
  await redis.stop();
});

test("a page whose server cannot reach PostgreSQL shows a banner naming it, not a 500 page, and renders itself once it answers", async ({ browser }) => {
  const context = await browser.newContext({ baseURL });
  const page = await context.newPage();
  await signIn(page, seed.users.viewer.email);
  await page.goto(`/runs/${seed.run.id}`);
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();

  postgres.stop();
  expect((await page.request.get("/api/health")).status()).toBe(503);
  await page.goto(`/runs/${seed.run.id}`);
  const banner = page.getByTestId("service-outage");
  await expect(banner).toHaveText(/The dashboard cannot reach PostgreSQL right now\. This page loads again by itself once it answers/);
  await page.screenshot({ path: "test-results/service-outage-banner.png" });
  await expect(page.getByText("Internal Server Error")).toHaveCount(0);

  postgres.start();
  await expect(banner).toBeHidden({ timeout: 30_000 });
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  expect((await page.request.get("/api/health")).status()).toBe(200);
  // The same server process throughout: the outage ended no process.
  expect(server.exitCode).toBeNull();
  expect(server.signalCode).toBeNull();
  await context.close();
});

test("with Redis away, health answers 503 naming it while pages that only read still render; 200 once it is back, same server", async ({ browser }) => {
  const context = await browser.newContext({ baseURL });
  const page = await context.newPage();
  await signIn(page, seed.users.viewer.email);

  await redis.stop();
  const away = await page.request.get("/api/health");
  expect(away.status()).toBe(503);
  expect(await away.json()).toMatchObject({ postgres: "ok", redis: "unreachable", errors: [expect.stringMatching(/^Redis is unreachable at redis:\/\/127\.0\.0\.1:\d+ /)] });
  await page.goto(`/runs/${seed.run.id}`);
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  await expect(page.getByText("Internal Server Error")).toHaveCount(0);

  await redis.start();
  await expect.poll(async () => (await page.request.get("/api/health")).status(), { timeout: 30_000 }).toBe(200);
  expect(server.exitCode).toBeNull();
  expect(server.signalCode).toBeNull();
  await context.close();
});
