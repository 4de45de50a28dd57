import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import { parse } from "yaml";
import { appRouter, createCallerFactory, createContext, createLocalUser } from "@evotrainer/api";
import { runConfigSchema, type Recipe } from "@evotrainer/core";
import { buildRunReport, createDatabase, createRun } from "@evotrainer/db";
import { createTestDatabase } from "@evotrainer/db/testing";
import { createProducerConnection, Producer, QueueName } from "@evotrainer/queue";
import { loadWorkerEnv } from "../../apps/worker/src/env.ts";
import { proposerFactory } from "../../apps/worker/src/loop/proposer-factory.ts";
import { startWorkerApp } from "../../apps/worker/src/worker-app.ts";
import { FakeLlmServer, type CapturedRequest, type Reply } from "../support/fake-llm-server.ts";
import { deleteKeys, testPrefix } from "../support/redis-prefix.ts";

// A database of its own: this worker's reconcile sweep must not pick up other files' runs, nor theirs this one.
const database = await createTestDatabase(inject("databaseUrl"));
const db = createDatabase(database.url);
const redisUrl = inject("redisUrl");
const prefix = testPrefix();
const jobsDir = mkdtempSync(join(tmpdir(), "evo-llm-gym-"));

/** The JSON line that follows a heading of the proposer's evidence. */
function sectionLines(text: string, heading: string): string[] {
  const start = text.indexOf(`## ${heading}`);
  if (start < 0) return [];
  const body = text.slice(text.indexOf("\n", start) + 1);
  return body.slice(0, body.indexOf("\n\n")).split("\n");
}

/**
 * A model that reads the evidence it is sent: the parent recipe, the report's metrics and what
 * a refusal named, and answers with the changes those numbers point at, relative to the parent's
 * own values (so a later round proposes from wherever the run has got to).
 */
function evidenceDrivenModel(request: CapturedRequest): Reply {
  const evidence = request.text;
  const recipe = JSON.parse(sectionLines(evidence, "Parent recipe")[0]!) as Recipe;
  const metricsLine = sectionLines(evidence, "Health report of the parent").find((l) => l.startsWith("Metrics: "))!;
  const metrics = JSON.parse(metricsLine.slice("Metrics: ".length)) as { truncation_rate: number; dead_group_ratio: number; label_rate: Record<string, number> };
  const k = Number(/Propose up to (\d+)/.exec(evidence)![1]);
  const refused = new Set([...evidence.matchAll(/\(factor ([a-zA-Z.]+)\): already tried/g)].map((m) => m[1]));
  const candidates = [
    metrics.truncation_rate > 0.05 && {
      hypothesis: `if the response limit doubles from ${recipe.algo.maxResponseTokens}, worked solutions reach their final answer (truncation ${metrics.truncation_rate.toFixed(2)})`,
      targetMetric: "truncation_rate",
      factor: "algo.maxResponseTokens",
      patch: [{ op: "replace", path: "/algo/maxResponseTokens", value: recipe.algo.maxResponseTokens * 2 }],
      expectedEffect: { direction: "down" },
      falsification: "truncation_rate does not fall",
    },
    metrics.dead_group_ratio > 0.2 && !recipe.data.dynamicSampling.enabled && {
      hypothesis: `if zero-variance groups are resampled, more groups carry signal (dead ratio ${metrics.dead_group_ratio.toFixed(2)})`,
      targetMetric: "dead_group_ratio",
      factor: "data.dynamicSampling",
      patch: [{ op: "replace", path: "/data/dynamicSampling/enabled", value: true }],
      expectedEffect: { direction: "down" },
      falsification: "dead_group_ratio does not fall",
    },
    (metrics.label_rate.format_error ?? 0) > 0.05 && {
      hypothesis: "if a readable final answer earns a little reward, format errors become rarer",
      targetMetric: "label_rate.format_error",
      factor: "reward.components.format.weight",
      patch: [{ op: "replace", path: "/reward/components/format/weight", value: (recipe.reward.components.format?.weight ?? 0) + 0.1 }],
      expectedEffect: { direction: "down" },
      falsification: "label_rate.format_error does not fall",
    },
    {
      hypothesis: `if the learning rate rises from ${recipe.algo.lr}, the reward climbs faster`,
      targetMetric: "reward_mean",
      factor: "algo.lr",
      patch: [{ op: "replace", path: "/algo/lr", value: recipe.algo.lr * 1.5 }],
      expectedEffect: { direction: "up" },
      falsification: "reward_mean does not rise",
    },
  ].filter((c): c is Exclude<typeof c, false> => c !== false && !refused.has(c.factor));
  return {
    kind: "object",
    object: {
      diagnosis: `truncation ${metrics.truncation_rate.toFixed(2)}, dead groups ${metrics.dead_group_ratio.toFixed(2)}`,
      hypotheses: candidates.map((c) => c.hypothesis),
      interventions: candidates.slice(0, k),
      // A wrong answer after a long response: a failure mode the harness has no label for.
      detectors: [
        {
          label: "long_wrong_answer",
          description: "A long response that still earned nothing.",
          when: "reward < 0.5 && response_tokens >= 150",
          cases: {
            match: [{ name: "long and wrong", rollout: { response: "…", reward: 0, responseTokens: 200 } }],
            noMatch: [{ name: "long and right", rollout: { response: "…", reward: 1, responseTokens: 200 } }],
          },
        },
      ],
    },
  };
}

describe("a gym run with the LLM proposer (real Postgres, Redis, BullMQ, child-process trainer, local LLM server)", () => {
  let server: FakeLlmServer | undefined;
  afterAll(async () => {
    await server?.close();
    await deleteKeys(redisUrl, `${prefix}:*`);
    await db.$disconnect();
    await database.drop();
    rmSync(jobsDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  });

  it("finishes end to end with the LLM's interventions, provenance llm, in the report and the dashboard's data", async () => {
    server = await FakeLlmServer.start("openai", { script: evidenceDrivenModel });
    const demo = parse(readFileSync("examples/gym-math.yaml", "utf8")) as Record<string, unknown>;
    const config = runConfigSchema.parse({
      ...demo,
      name: "llm-gym-run",
      search: { proposals: 3, keep: 2, stepsPerBranch: 20, proposer: "llm" },
      llm: { provider: "openai-compatible", model: "fake-evidence-reader", baseUrl: server.baseUrl, prices: { inputPerMillion: 0.5, outputPerMillion: 1.5 }, budgetDollars: 2 },
      budget: { gpuSeconds: 900, branches: 4, rounds: 2 },
    });
    const org = await db.organization.create({ data: { name: prefix, slug: prefix } });
    const viewer = await createLocalUser(db, { email: `${prefix}@example.test`, name: "Viewer", password: "correct horse battery staple", organizationId: org.id, role: "viewer" });
    const { runId, baseBranchId } = await createRun(db, config, { organizationId: org.id, createdById: viewer.id });

    const env = loadWorkerEnv({ DATABASE_URL: database.url, REDIS_URL: redisUrl, EVO_QUEUE_PREFIX: prefix, EVO_JOBS_DIR: jobsDir, EVO_MONITOR_EVERY_MS: "200", EVO_RECONCILE_EVERY_MS: "5000" });
    const worker = await startWorkerApp(env, proposerFactory({}), () => {});
    const connection = createProducerConnection(redisUrl);
    await connection.connect();
    const producer = new Producer(connection, prefix);
    try {
      await producer.enqueue(QueueName.Dispatch, { runId, branchId: baseBranchId });
      const deadline = Date.now() + 540_000;
      while (!["completed", "failed"].includes((await db.run.findUniqueOrThrow({ where: { id: runId } })).status)) {
        if (Date.now() > deadline) throw new Error("the run did not finish in time");
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    } finally {
      await producer.close();
      connection.disconnect();
      await worker.shutdown();
    }

    const report = await buildRunReport(db, runId);
    console.log(report.branches.map((b) => `v${b.version} ${b.status} ${b.kind === "control" ? "control" : (b.factor ?? "base")} (${b.provenance ?? "-"}) score=${b.promotionScore?.toFixed(3)} llm=$${b.llm?.dollars.toFixed(6) ?? 0}`).join("\n"));
    expect(report.status).toBe("completed");
    expect(report.sealed?.score).toEqual(expect.any(Number));

    // Every candidate came from the LLM, none from a fallback, and every one was backtested first
    // (the round's controls are the parent's recipe again, from no proposer).
    const children = report.branches.filter((b) => b.parentId !== null && b.kind === "candidate");
    expect(children.length).toBeGreaterThanOrEqual(2);
    for (const b of children) {
      expect(b.provenance, `v${b.version}`).toBe("llm");
      expect(b.backtest, `v${b.version}`).not.toBeNull();
    }
    expect(report.llm.fallbacks).toBe(0);
    // The model followed the evidence: the tight token budget was among its first proposals (the
    // backtest then decides which are trained), and every proposal of the run is the model's.
    const proposals = await db.intervention.findMany({ where: { runId } });
    expect(proposals.filter((p) => p.round === 1).map((p) => p.factor)).toContain("algo.maxResponseTokens");
    expect(proposals.every((p) => p.provenance === "llm")).toBe(true);

    // Cost next to GPU-seconds: per call (the server's usage × prices), per branch, per run.
    expect(report.llm.calls).toBe(server.requests.length);
    const billed = server.usages.reduce((s, u) => s + (u.inputTokens * 0.5 + u.outputTokens * 1.5) / 1e6, 0);
    expect(report.llm.dollars).toBeCloseTo(billed, 12);
    expect(report.budget.llmDollars.used).toBeCloseTo(billed, 12);
    expect(report.branches.reduce((s, b) => s + (b.llm?.dollars ?? 0), 0)).toBeCloseTo(billed, 12);
    expect(report.branches.find((b) => b.id === baseBranchId)!.llm!.calls).toBeGreaterThanOrEqual(1);

    // Its detector went through the guards, its own cases and the replay over settled branches.
    const replays = await db.event.findMany({ where: { runId, type: "llm_detectors" } });
    expect(replays.length).toBeGreaterThanOrEqual(1);
    expect(replays[0]!.payload).toMatchObject({ candidates: [{ detector: expect.stringMatching(/^llm\.math\.long_wrong_answer\.[0-9a-f]{12}$/), accepted: expect.any(Boolean), reasons: expect.any(Array) }] });

    // The sealed split's data never reached the model.
    for (const r of server.requests) expect(r.raw).not.toContain(config.evaluation.sealed.dataset);

    // The dashboard's data: the same provenance, the spend next to GPU-seconds, the calls for audit.
    const caller = createCallerFactory(appRouter)(
      createContext({ db, headers: new Headers(), sessionUserId: async () => viewer.id, producer: () => { throw new Error("read-only test"); } }),
    );
    const run = await caller.run.byId({ runId });
    expect(run).toMatchObject({ proposer: "llm", llm: { calls: report.llm.calls, budgetDollars: 2 } });
    expect(run.llm.dollars).toBeCloseTo(billed, 12);
    expect(run.gpuSecondsUsed).toBeGreaterThan(0);
    const tree = await caller.run.tree({ runId });
    expect(tree.branches.filter((b) => b.parentId !== null && b.kind === "candidate").every((b) => b.provenance === "llm")).toBe(true);
    expect(tree.branches.filter((b) => b.kind === "control").every((b) => b.provenance === null)).toBe(true);
    const branch = await caller.branch.byId({ branchId: children[0]!.id });
    expect(branch.intervention).toMatchObject({ provenance: "llm", factor: children[0]!.factor });
    const base = await caller.branch.byId({ branchId: baseBranchId });
    expect(base.llm.calls).toBe(report.branches.find((b) => b.id === baseBranchId)!.llm!.calls);
    const audit = await caller.run.llmCalls({ runId });
    expect(audit.calls).toHaveLength(report.llm.calls);
    expect(audit.calls[0]).toMatchObject({ model: "fake-evidence-reader", provider: "openai-compatible", promptVersion: "propose.v1", outcome: "ok" });
    expect(audit.calls[0]).not.toHaveProperty("request");
    const call = await caller.run.llmCall({ runId, eventId: String(audit.calls.at(-1)!.id) });
    expect(call.request?.system).toContain("You are the proposer of EvoTrainer");
    expect(call.request?.messages[0]?.content).toContain("## Health report of the parent");
    expect(call.response?.object).toMatchObject({ interventions: expect.any(Array) });
  }, 600_000);
});
