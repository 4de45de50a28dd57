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
import { until } from "../support/until.ts";

// A database of its own: no other file's worker may drive this run past its gate.
const database = await createTestDatabase(inject("databaseUrl"));
const redisUrl = inject("redisUrl");
const prefix = testPrefix();
const jobsDir = mkdtempSync(join(tmpdir(), "evo-design-gate-"));
const db = createDatabase(database.url);

describe("a design-gated run trains a round only once a person approves one of its candidates", () => {
  afterAll(async () => {
    await deleteKeys(redisUrl, `${prefix}:*`);
    await db.$disconnect();
    await database.drop();
    rmSync(jobsDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  });

  it("waits at design, trains an approved candidate with its controls, and cancels the controls of a round turned down", async () => {
    const base = parse(readFileSync("examples/gym-swe.yaml", "utf8")) as Record<string, unknown>;
    const config = runConfigSchema.parse({
      ...base,
      name: "design-gated",
      autonomy: { mode: "full", gates: { diagnosis: false, design: true, backtest: false, completion: false }, gateFirstBranchesPerDomain: 0 },
      search: { proposals: 2, keep: 1, stepsPerBranch: 12, proposer: "rule" },
      budget: { gpuSeconds: 100_000, branches: 2, rounds: 2 },
    });
    const org = await db.organization.create({ data: { name: prefix, slug: prefix } });
    const approver = await createLocalUser(db, { email: `${prefix}@example.test`, name: "Approver", password: "correct horse battery staple", organizationId: org.id, role: "approver" });
    const { runId, baseBranchId } = await createRun(db, config, { organizationId: org.id });
    const env = loadWorkerEnv({ DATABASE_URL: database.url, REDIS_URL: redisUrl, EVO_QUEUE_PREFIX: prefix, EVO_JOBS_DIR: jobsDir, EVO_MONITOR_EVERY_MS: "200", EVO_RECONCILE_EVERY_MS: "1000" });
    const worker = await startWorkerApp(env, (lockedEvaluation) => new RuleBasedProposer({ lockedEvaluation }), () => {});
    const connection = createProducerConnection(redisUrl);
    await connection.connect();
    const producer = new Producer(connection, prefix);
    const api = createCallerFactory(appRouter)(createContext({ db, headers: new Headers(), sessionUserId: async () => approver.id, producer: () => producer }));
    const round = (n: number) => db.branch.findMany({ where: { runId, round: n }, include: { jobs: true }, orderBy: { version: "asc" } });
    const proposedRound = (n: number) => until(`round ${n} waiting at design`, async () => {
      const branches = await round(n);
      return branches.length > 0 && branches.every((b) => b.status === "proposed") ? branches : null;
    });
    try {
      await producer.enqueue(QueueName.Dispatch, { runId, branchId: baseBranchId });

      // Round 1 waits: its candidate and its controls are proposed and nothing trains.
      const first = await proposedRound(1);
      const candidate = first.find((b) => b.kind === "candidate")!;
      // A parent no round has measured gets the larger set of seed replicates.
      expect(first.filter((b) => b.kind === "control")).toHaveLength(config.search.newParentControlReplicates);
      expect(first.flatMap((b) => b.jobs)).toEqual([]);
      const waiting = await db.event.findFirstOrThrow({ where: { branchId: candidate.id, type: "awaiting_decision" } });
      expect(waiting.payload).toMatchObject({ stage: "design", reasons: ["the policy gates after design"] });

      // Approved: the candidate trains, and its controls with it, and the candidate is judged.
      expect(await api.decision.approve({ branchId: candidate.id, reason: "worth a try" })).toMatchObject({ status: "queued" });
      await until("round 1 judged", async () => (await db.verdict.count({ where: { branchId: candidate.id } })) === 1);
      const trained = await round(1);
      expect(trained.every((b) => b.jobs.some((j) => j.kind === "train" && j.state === "succeeded"))).toBe(true);

      // Round 2 turned down at design: its controls never train, and the run finishes.
      const second = await proposedRound(2);
      const vetoed = second.find((b) => b.kind === "candidate")!;
      await api.decision.veto({ branchId: vetoed.id, reason: "the same factor again" });
      await until("the run finished", async () => ["completed", "failed"].includes((await db.run.findUniqueOrThrow({ where: { id: runId } })).status));
      const after = await round(2);
      const replicates = vetoed.parentId === baseBranchId ? config.search.controlReplicates : config.search.newParentControlReplicates;
      expect(after.map((b) => `${b.kind} ${b.status} ${b.jobs.length} job(s)`)).toEqual(["candidate vetoed 0 job(s)", ...Array(replicates).fill("control cancelled 0 job(s)")]);
      expect(await db.decision.findMany({ where: { branchId: { in: [candidate.id, vetoed.id] } }, select: { stage: true, kind: true, userId: true }, orderBy: { createdAt: "asc" } })).toEqual([
        { stage: "design", kind: "approve", userId: approver.id },
        expect.objectContaining({ stage: "completion", userId: null }),
        { stage: "design", kind: "veto", userId: approver.id },
      ]);
    } finally {
      await producer.close();
      connection.disconnect();
      await worker.shutdown();
    }
  }, 600_000);
});
