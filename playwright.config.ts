import { defineConfig, devices } from "@playwright/test";

// tests/e2e/run.ts creates the test database and exports DATABASE_URL before Playwright starts,
// because Playwright starts the web server before any globalSetup could.
const port = Number(process.env.EVO_E2E_PORT ?? 3100);

export default defineConfig({
  testDir: "tests/e2e",
  fullyParallel: false,
  workers: 1,
  retries: 0,
  reporter: [["list"]],
  // A bound against hangs, not a speed target: CI runs these with a core held busy beside a live worker.
  timeout: 90_000,
  expect: { timeout: 15_000 },
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    trace: "retain-on-failure",
  },
  projects: [
    {
      name: "chromium",
      use: {
        ...devices["Desktop Chrome"],
        launchOptions: {
          executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
          // The network here is closed: keep Chromium from reaching out at start-up.
          args: ["--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
        },
      },
    },
  ],
  // The real quickstart brings the dashboard and the worker up, exactly as a user runs it.
  webServer: {
    command: "node scripts/quickstart.mjs --no-demo",
    url: `http://127.0.0.1:${port}/api/health`,
    env: { EVO_WEB_PORT: String(port) },
    // A cold machine builds Next.js inside the quickstart; this bounds a hang, not the build's speed.
    timeout: 600_000,
    reuseExistingServer: false,
    stdout: "pipe",
    stderr: "pipe",
    gracefulShutdown: { signal: "SIGTERM", timeout: 15_000 },
  },
});
