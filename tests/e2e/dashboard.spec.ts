import { spawn } from "node:child_process";
import { resolve } from "node:path";
import { expect, test } from "@playwright/test";
import { createLocalUser } from "@evotrainer/api";
import { createDatabase } from "@evotrainer/db";
import { SEED_PASSWORD } from "../support/dashboard-seed.ts";
import { signIn } from "./sign-in.ts";

test("the health endpoint answers 200 when PostgreSQL and Redis are up", async ({ request }) => {
  const response = await request.get("/api/health");
  expect(response.status()).toBe(200);
  expect(await response.json()).toEqual({ postgres: "ok", redis: "ok" });
});

test("the runs page shows the empty state, then a run from the database", async ({ page }) => {
  // A person sees the runs of their own organizations only: a fresh organization starts empty.
  const db = createDatabase(process.env.DATABASE_URL!);
  try {
    const org = await db.organization.create({ data: { name: "E2E", slug: `e2e-${Date.now()}` } });
    const email = `runs-${Date.now()}@example.test`;
    await createLocalUser(db, { email, name: "Runs viewer", password: SEED_PASSWORD, organizationId: org.id, role: "viewer" });
    await signIn(page, email);
    await expect(page.getByRole("heading", { name: "Runs" })).toBeVisible();
    await expect(page.getByTestId("runs-empty")).toContainText("No runs yet");

    await db.run.create({
      data: {
        organizationId: org.id,
        name: "math-gym-e2e",
        domain: "math",
        status: "paused",
        basePolicy: "gym:math-base",
        settings: {},
        evaluationProtocol: {},
        autonomyPolicy: { mode: "full" },
        budget: { gpuSeconds: 600 },
        gpuSecondsUsed: 42,
      },
    });
  } finally {
    await db.$disconnect();
  }
  await page.reload();
  const row = page.getByTestId("runs-table").getByRole("row", { name: /math-gym-e2e/ });
  await expect(row).toContainText("paused");
  await expect(row).toContainText("42 s / 600 s");
});

test("the health endpoint answers 503 naming Redis and the fix when Redis is unreachable", async () => {
  // A second dashboard process on the same build, pointed at a Redis that is not there.
  const port = 3199;
  const server = spawn(resolve("node_modules/.bin/next"), ["start", "--port", String(port), "--hostname", "127.0.0.1"], {
    cwd: "apps/web",
    env: { ...process.env, REDIS_URL: "redis://127.0.0.1:6399" },
    stdio: "ignore",
  });
  try {
    let response: Response | undefined;
    for (let attempt = 0; attempt < 60 && !response; attempt++) {
      response = await fetch(`http://127.0.0.1:${port}/api/health`).catch(() => undefined);
      if (!response) await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(response?.status).toBe(503);
    const body = (await response!.json()) as { postgres: string; redis: string; errors: string[] };
    expect(body).toMatchObject({ postgres: "ok", redis: "unreachable" });
    expect(body.errors[0]).toMatch(/Redis is unreachable at redis:\/\/127\.0\.0\.1:6399.*redis-server --daemonize yes/);
  } finally {
    server.kill("SIGTERM");
  }
});
