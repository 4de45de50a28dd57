import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { resolve } from "node:path";
import { expect, test } from "@playwright/test";
import { createLocalUser } from "@evotrainer/api";
import { createDatabase, upsertGpuNode } from "@evotrainer/db";
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

test("the nodes page lists GPU nodes with the GPUs in use and where keys come from, never a key", async ({ page }) => {
  const db = createDatabase(process.env.DATABASE_URL!);
  const key = `-----BEGIN OPENSSH PRIVATE KEY-----\n${randomBytes(300).toString("base64")}\n-----END OPENSSH PRIVATE KEY-----\n`;
  const name = `e2e-node-${Date.now()}`;
  try {
    const org = await db.organization.create({ data: { name: "E2E nodes", slug: `e2e-nodes-${Date.now()}` } });
    const email = `nodes-${Date.now()}@example.test`;
    await createLocalUser(db, { email, name: "Nodes viewer", password: SEED_PASSWORD, organizationId: org.id, role: "viewer" });
    const base = { host: "10.1.2.3", port: 2222, user: "ubuntu", gpus: 4, labels: { gpu: "h100" }, workRoot: "/scratch/jobs", enabled: true };
    await upsertGpuNode(db, { ...base, name, key: { stored: key } }, { EVO_MASTER_KEY: randomBytes(32).toString("base64") });
    await signIn(page, email);
  } finally {
    await db.$disconnect();
  }
  await page.getByRole("link", { name: "Nodes" }).click();
  const row = page.getByTestId("nodes-table").getByRole("row", { name: new RegExp(name) });
  await expect(row).toContainText("ubuntu@10.1.2.3:2222");
  await expect(row).toContainText("0 / 4");
  await expect(row).toContainText("gpu=h100");
  await expect(row).toContainText("stored");
  const line = key.split("\n")[1]!.slice(0, 40);
  expect(await page.content()).not.toContain(line);
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
