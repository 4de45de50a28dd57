import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "unit",
          include: ["packages/*/src/**/*.test.ts", "apps/*/src/**/*.test.ts", "tests/loop/**/*.test.ts", "tests/docs/**/*.test.ts"],
          environment: "node",
          // A limit against hangs, not a speed target (those live in `npm run bench`): CI runs the
          // tests with a core held busy, and the real-data tests label thousands of rollouts.
          testTimeout: 60_000,
        },
      },
      {
        test: {
          name: "integration",
          include: ["tests/integration/**/*.test.ts"],
          environment: "node",
          // One fresh database per run: created before any test file, dropped after all.
          globalSetup: ["tests/integration/global-setup.ts"],
          // Limits against hangs, not speed: a test that takes 11 s on a quiet machine took 30 s
          // beside other suites with a core held busy, and failed on a 30 s limit.
          testTimeout: 300_000,
          hookTimeout: 300_000,
        },
      },
    ],
  },
});
