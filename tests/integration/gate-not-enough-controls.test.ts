import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import { parse } from "yaml";
import { appRouter, createCallerFactory, createContext, createLocalUser } from "@evotrainer/api";
import { runConfigSchema } from "@evotrainer/core";
import { alphaSpentBefore, createDatabase, createRun } from "@evotrainer/db";
import { createTestDatabase } from "@evotrainer/db/testing";
import { RuleBasedProposer } from "@evotrainer/proposers";
import { createProducerConnection, Producer, QueueName } from "@evotrainer/queue";
import { loadWorkerEnv } from "../../apps/worker/src/env.ts";
import { startWorkerApp } from "../../apps/worker/src/worker-app.ts";
import { deleteKeys, testPrefix } from "../support/redis-prefix.ts";
import { stopRunAndSettle } from "../support/stop-run.ts";
import { until } from "../support/until.ts";

// A database of its own, as every file that starts a worker has: see worker-isolation.test.ts.
const database = await createTestDatabase(inject("databaseUrl"));
const databaseUrl = database.url;
const redisUrl = inject("redisUrl");
const prefix = testPrefix();
const jobsDir = mkdtempSync(join(tmpdir(), "evo-noise-df-"));
const db = createDatabase(databaseUrl);

describe("a round whose seed noise has too few degrees of freedom", () => {
  afterAll(async () => {
    await deleteKeys(redisUrl, `${prefix}:*`);
    await db.$disconnect();
    await database.drop();
    rmSync(jobsDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  });

  it("goes to a person under full autonomy, with 'not enough controls to judge', and spends none of the run's alpha", async () => {
    const example = parse(readFileSync("examples/gym-math.yaml", "utf8")) as Record<string, unknown>;
    // Two controls in the base's round: 1 df of seed noise, under gate.minNoiseDf (2).
    const config = runConfigSchema.parse({
      ...example,
      name: "noise-df",
      trainer: { tasksPerStep: 8 },
      search: { proposals: 3, keep: 1, stepsPerBranch: 8, proposer: "rule", newParentControlReplicates: 2 },
      budget: { gpuSeconds: 900, branches: 2, rounds: 2 },
    });
    expect(config.autonomy.mode).toBe("full");
    const org = await db.organization.create({ data: { name: prefix, slug: prefix } });
    const { runId, baseBranchId } = await createRun(db, config, { organizationId: org.id });
    const approver = await createLocalUser(db, { email: `${prefix}@example.test`, name: "Approver", password: "correct horse battery staple", organizationId: org.id, role: "approver" });
    const env = loadWorkerEnv({ DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, EVO_QUEUE_PREFIX: prefix, EVO_JOBS_DIR: jobsDir, EVO_MONITOR_EVERY_MS: "200", EVO_RECONCILE_EVERY_MS: "2000" });
    const worker = await startWorkerApp(env, (lockedEvaluation) => new RuleBasedProposer({ lockedEvaluation }), () => {});
    const connection = createProducerConnection(redisUrl);
    await connection.connect();
    const producer = new Producer(connection, prefix);
    try {
      await producer.enqueue(QueueName.Dispatch, { runId, branchId: baseBranchId });
      const waiting = await until("the round-1 candidate awaiting a decision", () =>
        db.branch.findFirst({ where: { runId, round: 1, kind: "candidate", status: "awaiting_decision" }, include: { verdict: true } }),
      );
      expect(await db.branch.count({ where: { runId, round: 1, kind: "control" } })).toBe(2);
      const event = await db.event.findFirstOrThrow({ where: { branchId: waiting.id, type: "awaiting_decision" } });
      expect(event.payload).toMatchObject({ reasons: [expect.stringMatching(/^not enough controls to judge: the seed noise has 1 degree\(s\) of freedom and the gate needs 2/)], recommended: "veto" });
      const checks = waiting.verdict!.checks as { name: string; passed: boolean; numbers: Record<string, unknown> }[];
      const vsControl = checks.find((c) => c.name === "main_score_vs_control")!;
      expect(vsControl).toMatchObject({ passed: false, numbers: { noiseDf: 1, controls: 2, roundAlpha: 0.025, spent: 0 } });
      expect(waiting.verdict!.passed).toBe(false);
      // Nothing was tested: round 2 may still take the whole of its share and round 1's.
      expect(await alphaSpentBefore(db, runId, 2)).toBe(0);
    } finally {
      const api = createCallerFactory(appRouter)(createContext({ db, headers: new Headers(), sessionUserId: async () => approver.id, producer: () => producer }));
      await stopRunAndSettle(db, api, runId);
      await producer.close();
      connection.disconnect();
      await worker.shutdown();
    }
  }, 300_000);
});
