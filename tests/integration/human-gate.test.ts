import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import { parse } from "yaml";
import { appRouter, createCallerFactory, createContext, createLocalUser } from "@evotrainer/api";
import { runConfigSchema } from "@evotrainer/core";
import { createDatabase, createRun } from "@evotrainer/db";
import { createTestDatabase } from "@evotrainer/db/testing";
import { RuleBasedProposer } from "@evotrainer/proposers";
import { createProducerConnection, Producer, QueueName } from "@evotrainer/queue";
import { loadWorkerEnv } from "../../apps/worker/src/env.ts";
import { startWorkerApp } from "../../apps/worker/src/worker-app.ts";
import { deleteKeys, testPrefix } from "../support/redis-prefix.ts";
import { stopRunAndSettle } from "../support/stop-run.ts";
import { until } from "../support/until.ts";
import { CLI } from "../support/cli.ts";

// A database of its own, as every file that starts a worker has: see worker-isolation.test.ts.
const database = await createTestDatabase(inject("databaseUrl"));
const databaseUrl = database.url;
const redisUrl = inject("redisUrl");
const prefix = testPrefix();
const jobsDir = mkdtempSync(join(tmpdir(), "evo-gate-"));
const db = createDatabase(databaseUrl);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("a human-gated run waits for a person, and a veto steers the next proposals", () => {
  afterAll(async () => {
    await deleteKeys(redisUrl, `${prefix}:*`);
    await db.$disconnect();
    await database.drop();
    rmSync(jobsDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  });

  it("stops at awaiting_decision; `evotrainer decide … veto --note` vetoes it and the next round avoids its factor", async () => {
    const base = parse(readFileSync("examples/gym-swe.yaml", "utf8")) as Record<string, unknown>;
    const config = runConfigSchema.parse({
      ...base,
      name: "human-gated",
      autonomy: { mode: "human_gated" },
      search: { proposals: 3, keep: 1, stepsPerBranch: 12, proposer: "rule" },
      budget: { gpuSeconds: 900, branches: 3, rounds: 3 },
    });
    const org = await db.organization.create({ data: { name: prefix, slug: prefix } });
    const { runId, baseBranchId } = await createRun(db, config, { organizationId: org.id });
    // The person deciding from the CLI: an approver of the run's organization, by their API key.
    const approver = await createLocalUser(db, { email: `${prefix}@example.test`, name: "Approver", password: "correct horse battery staple", organizationId: org.id, role: "approver" });
    const { key } = await createCallerFactory(appRouter)(
      createContext({ db, headers: new Headers(), sessionUserId: async () => approver.id, producer: () => { throw new Error("no queue needed"); } }),
    ).apiKey.create({ name: "cli" });
    const env = loadWorkerEnv({ DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, EVO_QUEUE_PREFIX: prefix, EVO_JOBS_DIR: jobsDir, EVO_MONITOR_EVERY_MS: "200", EVO_RECONCILE_EVERY_MS: "2000" });
    const worker = await startWorkerApp(env, (lockedEvaluation) => new RuleBasedProposer({ lockedEvaluation }), () => {});
    const connection = createProducerConnection(redisUrl);
    await connection.connect();
    const producer = new Producer(connection, prefix);
    try {
      await producer.enqueue(QueueName.Dispatch, { runId, branchId: baseBranchId });
      const waiting = await until("a branch awaiting a decision", () =>
        db.branch.findFirst({ where: { runId, status: "awaiting_decision" }, include: { intervention: true } }),
      );
      const factor = waiting.intervention!.factor;

      // Nothing moves while the person has not decided, however often the reconciler sweeps.
      await sleep(4_000);
      expect((await db.branch.findUniqueOrThrow({ where: { id: waiting.id } })).status).toBe("awaiting_decision");
      expect(await db.intervention.count({ where: { runId, round: 2 } })).toBe(0);
      const event = await db.event.findFirstOrThrow({ where: { branchId: waiting.id, type: "awaiting_decision" } });
      expect(event.payload).toMatchObject({ reasons: expect.arrayContaining(["the run is human-gated"]) });

      const cli = spawnSync(process.execPath, [CLI, "decide", waiting.id, "veto", "--note", `do not change ${factor} again: it hides the failure instead of fixing it`], {
        env: { ...process.env, DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, EVO_QUEUE_PREFIX: prefix, EVO_API_KEY: key },
        encoding: "utf8",
      });
      expect(cli.status, cli.stderr).toBe(0);

      await until("the veto settled", async () => (await db.branch.findUniqueOrThrow({ where: { id: waiting.id } })).status === "vetoed");
      const next = await until("round 2 proposals", async () => {
        const rows = await db.intervention.findMany({ where: { runId, round: 2 } });
        return rows.length > 0 ? rows : null;
      });
      console.log(`vetoed ${factor}; round 2 proposed: ${next.map((i) => `${i.factor} (${i.status})`).join(", ")}`);
      expect(next.map((i) => i.factor)).not.toContain(factor);
      const decision = await db.decision.findFirstOrThrow({ where: { branchId: waiting.id } });
      expect(decision).toMatchObject({ kind: "veto", actorType: "human", stage: "completion", userId: approver.id });
    } finally {
      const api = createCallerFactory(appRouter)(createContext({ db, headers: new Headers(), sessionUserId: async () => approver.id, producer: () => producer }));
      await stopRunAndSettle(db, api, runId);
      await producer.close();
      connection.disconnect();
      await worker.shutdown();
    }
  }, 300_000);
});
