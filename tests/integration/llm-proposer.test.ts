import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { parse } from "yaml";
import type { Rollout } from "@evotrainer/contract";
import {
  compileHarness, DEFAULT_HEALTH_RULES, FACTOR_PATTERNS, healthReport, lockedEvaluationOf, MATH_DETECTORS, planRound, runConfigSchema,
  type ProposerInput, type RunConfig,
} from "@evotrainer/core";
import { buildRunReport, createDatabase, createRun } from "@evotrainer/db";
import { createTestDatabase } from "@evotrainer/db/testing";
import { proposerFactory } from "../../apps/worker/src/loop/proposer-factory.ts";
import { roundProposals } from "../../apps/worker/src/loop/round-proposals.ts";
import { FakeLlmServer, PROTOCOL_NAMES, type LlmProtocol } from "../support/fake-llm-server.ts";

// A database of its own: these runs stay "running" without a worker, which other files' workers must not pick up.
const database = await createTestDatabase(inject("databaseUrl"));
const db = createDatabase(database.url);
afterAll(async () => {
  await db.$disconnect();
  await database.drop();
});

const API_KEY = "sk-evo-test-4f1c";
// Recognisable everywhere the sealed split lives: the run's evaluation protocol and its rollouts.
const SEALED = "SEALED-SPLIT-CANARY-93d2";
const PRICES = { inputPerMillion: 3, outputPerMillion: 15 };
const MAX_RESPONSE_TOKENS = 224;

const demo = parse(readFileSync("examples/gym-math.yaml", "utf8")) as { evaluation: { sealed: Record<string, unknown> } };

function runConfig(server: FakeLlmServer, llm: Record<string, unknown> = {}): RunConfig {
  return runConfigSchema.parse({
    ...demo,
    name: `llm-proposer-${server.protocol}`,
    evaluation: { ...demo.evaluation, sealed: { ...demo.evaluation.sealed, dataset: `gym:${SEALED}`, grader: `grader-${SEALED}` } },
    search: { proposals: 3, keep: 2, stepsPerBranch: 12, proposer: "llm" },
    llm: {
      provider: server.protocol === "openai" ? "openai-compatible" : "anthropic",
      model: "fake-model",
      baseUrl: server.baseUrl,
      prices: PRICES,
      budgetDollars: 1,
      timeoutMs: 1_000,
      ...llm,
    },
  });
}

function rollout(i: number, split: Rollout["split"], reward: number, response: string, extra: Partial<Rollout> = {}): Rollout {
  return { uid: `${split}-${i}`, split, step: 12, taskId: `t${i % 4}`, groupId: `g${i % 4}`, sample: i, prompt: `Task ${i}: how many eggs?`, response, reward, rewardComponents: { correctness: reward }, responseTokens: 120, turns: 1, truncated: false, ...extra };
}

// The parent's training rollouts: cut-off worked solutions, right and wrong answers; and one
// sealed-split rollout that the evidence must never show.
const rollouts: Rollout[] = [
  ...Array.from({ length: 6 }, (_, i) => rollout(i, "train", 0, `Step ${i}: 16 - 3 = 13, then 13 - 4 = 9, so`, { truncated: true, finishReason: "length", responseTokens: MAX_RESPONSE_TOKENS })),
  ...Array.from({ length: 6 }, (_, i) => rollout(i + 6, "train", 1, "16 - 3 - 4 = 9 eggs, 9 * 2 = 18. \\boxed{18}", { finishReason: "stop" })),
  ...Array.from({ length: 4 }, (_, i) => rollout(i + 12, "train", 0, "The answer is \\boxed{17}", { finishReason: "stop" })),
  rollout(99, "sealed", 1, `Held-out answer for ${SEALED}: \\boxed{42}`),
];
const compiled = compileHarness({ version: 1, detectors: [...MATH_DETECTORS], healthRules: [...DEFAULT_HEALTH_RULES] });
if (!compiled.ok) throw new Error("the math harness does not compile");
const harness = compiled.harness;
const labels = harness.label(rollouts, "math", { maxResponseTokens: MAX_RESPONSE_TOKENS }).labels;
const train = rollouts.filter((r) => r.split === "train");

const longer = {
  hypothesis: "if the response limit doubles, worked solutions reach their final answer",
  targetMetric: "truncation_rate",
  factor: "algo.maxResponseTokens",
  patch: [{ op: "replace", path: "/algo/maxResponseTokens", value: 448 }],
  expectedEffect: { direction: "down", size: 0.3 },
  falsification: "truncation_rate stays above 0.2",
};
const shaping = {
  hypothesis: "if answers near the limit are penalised softly, the policy learns to finish in budget",
  targetMetric: "truncation_rate",
  factor: "reward.overlong",
  patch: [{ op: "replace", path: "/reward/overlong/enabled", value: true }],
  expectedEffect: { direction: "down" },
  falsification: "truncation_rate does not fall",
};
const answer = (...interventions: unknown[]) => ({
  diagnosis: "6 of 16 rollouts are cut at 224 tokens before their boxed answer",
  hypotheses: ["the token budget is too tight for worked solutions"],
  interventions,
});

describe.each(["openai", "anthropic"] as const)("the LLM proposer's rounds over %s", (protocol: LlmProtocol) => {
  const name = PROTOCOL_NAMES[protocol];
  let server: FakeLlmServer;
  let config: RunConfig;
  let runId: string;
  let branchIds: [string, string];
  const deps = { db, proposerFor: proposerFactory({ EVO_LLM_API_KEY: API_KEY }), log: () => {} };

  async function newRun(cfg: RunConfig): Promise<{ runId: string; baseBranchId: string }> {
    const org = await db.organization.create({ data: { name: cfg.name, slug: `${cfg.name}-${Math.random().toString(36).slice(2, 8)}` } });
    return createRun(db, cfg, { organizationId: org.id });
  }

  function round(n: number, branchId = branchIds[0], run = { runId, config }) {
    const locked = lockedEvaluationOf(run.config);
    const input: ProposerInput = {
      domain: "math",
      report: healthReport(harness, train, labels.filter((l) => l.rolloutUid.startsWith("train-"))),
      recipe: run.config.recipe,
      factors: FACTOR_PATTERNS,
      // The gym's answer: it renders every recipe (packages/adapters/src/offered-factors.test.ts walks it).
      renders: () => ({ ok: true }),
      lineage: [],
      skills: [],
      k: 3,
    };
    return roundProposals(deps, { runId: run.runId, branchId, round: n, config: run.config, locked, input, context: async () => ({ rollouts, labels, history: [] }) });
  }

  const events = (type: string, where: { runId?: string } = {}) =>
    db.event.findMany({ where: { runId: where.runId ?? runId, type }, orderBy: { id: "asc" } }).then((rows) => rows.map((r) => ({ ...r, payload: r.payload as Record<string, unknown> })));

  beforeAll(async () => {
    server = await FakeLlmServer.start(protocol, { apiKey: API_KEY });
    config = runConfig(server);
    const run = await newRun(config);
    runId = run.runId;
    const base = await db.branch.findUniqueOrThrow({ where: { id: run.baseBranchId } });
    const child = await db.branch.create({ data: { runId, parentId: base.id, version: 1, round: 1, status: "promoted", recipeId: base.recipeId } });
    branchIds = [base.id, child.id];
  });
  afterAll(() => server.close());

  it(`a proposal round produces valid interventions that pass planRound's gates (${name})`, async () => {
    server.reply({ kind: "object", object: answer(longer, shaping) });
    const out = await round(1);
    expect(out.interventions.map((i) => [i.factor, i.provenance])).toEqual([
      ["algo.maxResponseTokens", { kind: "llm", ref: "fake-model" }],
      ["reward.overlong", { kind: "llm", ref: "fake-model" }],
    ]);
    const planned = planRound({ parentRecipe: config.recipe, locked: lockedEvaluationOf(config), proposals: out.interventions, parentRollouts: train, parentLabels: labels, triedRecipeHashes: new Set(), keep: 2 });
    expect(planned.map((p) => p.status)).toEqual(["backtested", "backtested"]);

    const request = server.requests.at(-1)!;
    if (protocol === "anthropic") expect(request.headers).toMatchObject({ "x-api-key": API_KEY, "anthropic-version": expect.any(String) });
    else expect(request.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(request.text).toContain("label:truncated");
    const [call] = await events("llm_call");
    expect(call).toMatchObject({ branchId: branchIds[0], actor: "llm:fake-model", payload: { round: 1, outcome: "ok", attempt: 1, promptVersion: "propose.v1", model: "fake-model" } });
  });

  it(`a response with a two-factor patch is rejected and retried once with the reason (${name})`, async () => {
    const before = server.requests.length;
    const twoFactors = { ...longer, patch: [...longer.patch, { op: "replace", path: "/algo/temperature", value: 0.7 }] };
    server.reply({ kind: "object", object: answer(twoFactors) }, { kind: "object", object: answer(longer) });
    const out = await round(2);
    expect(out.interventions.map((i) => i.factor)).toEqual(["algo.maxResponseTokens"]);
    expect(server.requests.length).toBe(before + 2);
    const reason = "multiple_factors: changes 2 factors (algo.maxResponseTokens, algo.temperature)";
    expect(server.requests[before]!.text).not.toContain(reason);
    expect(server.requests[before + 1]!.text).toContain(reason);
    const calls = (await events("llm_call")).filter((e) => e.payload.round === 2);
    expect(calls.map((c) => [c.payload.attempt, c.payload.outcome])).toEqual([[1, "rejected"], [2, "ok"]]);
    expect(calls[0]!.payload.rejections).toEqual([expect.stringContaining(reason)]);
  });

  it(`malformed JSON falls back to the rule-based proposer with an event saying so (${name})`, async () => {
    server.reply({ kind: "text", text: '{"diagnosis": "cut off", "interventions": [' });
    const out = await round(3);
    expect(out.interventions.length).toBeGreaterThan(0);
    expect(out.interventions.every((i) => i.provenance.kind === "rule" || i.provenance.kind === "skill")).toBe(true);
    const fallback = (await events("proposer_fallback")).at(-1)!;
    expect(fallback).toMatchObject({ branchId: branchIds[0], payload: { round: 3, from: "llm", to: "rule-based", reason: "malformed" } });
    expect((await events("llm_call")).at(-1)!.payload).toMatchObject({ round: 3, outcome: "malformed", response: { text: '{"diagnosis": "cut off", "interventions": [' } });
  });

  it(`a timeout falls back to the rule-based proposer with an event saying so (${name})`, async () => {
    server.reply({ kind: "hang" });
    const started = Date.now();
    const out = await round(4, branchIds[1]);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(out.interventions.every((i) => i.provenance.kind !== "llm")).toBe(true);
    expect((await events("proposer_fallback")).at(-1)).toMatchObject({ branchId: branchIds[1], payload: { round: 4, reason: "timeout", message: "the model did not answer within 1000 ms" } });
  });

  it(`token and dollar accounting add up: per call from the server's usage, per branch, per run (${name})`, async () => {
    server.reply({ kind: "object", object: answer(shaping) });
    await round(5, branchIds[1]);

    const calls = await events("llm_call");
    // Every answered request was billed by the server; a timed-out call billed nothing.
    const billed = calls.filter((c) => c.payload.outcome !== "timeout");
    expect(billed.map((c) => c.payload.usage)).toEqual(server.usages);
    for (const c of calls) {
      const usage = c.payload.usage as { inputTokens: number; outputTokens: number };
      expect(c.payload.dollars).toBeCloseTo((usage.inputTokens * PRICES.inputPerMillion + usage.outputTokens * PRICES.outputPerMillion) / 1e6, 15);
    }
    const sum = (list: typeof calls) => ({
      calls: list.length,
      inputTokens: list.reduce((s, c) => s + (c.payload.usage as { inputTokens: number }).inputTokens, 0),
      outputTokens: list.reduce((s, c) => s + (c.payload.usage as { outputTokens: number }).outputTokens, 0),
      dollars: list.reduce((s, c) => s + (c.payload.dollars as number), 0),
    });

    const report = await buildRunReport(db, runId);
    for (const id of branchIds) {
      const expected = sum(calls.filter((c) => c.branchId === id));
      const branch = report.branches.find((b) => b.id === id)!;
      expect(expected.calls).toBeGreaterThan(0);
      expect(branch.llm).toMatchObject({ calls: expected.calls, inputTokens: expected.inputTokens, outputTokens: expected.outputTokens });
      expect(branch.llm!.dollars).toBeCloseTo(expected.dollars, 12);
    }
    const perBranch = report.branches.reduce((s, b) => s + (b.llm?.dollars ?? 0), 0);
    expect(report.llm.calls).toBe(calls.length);
    expect(report.llm.dollars).toBeCloseTo(perBranch, 12);
    expect(report.llm.dollars).toBeCloseTo(sum(calls).dollars, 12);
    expect(report.llm.fallbacks).toBe(2);
    const run = await db.run.findUniqueOrThrow({ where: { id: runId } });
    expect(run.llmDollarsUsed).toBeCloseTo(report.llm.dollars, 12);
    expect(report.budget.llmDollars).toEqual({ used: run.llmDollarsUsed, total: 1 });
  });

  it(`the dollar budget stops LLM calls once spent, and the fallback event says why (${name})`, async () => {
    // One answered call costs far more than this budget.
    const tight = runConfig(server, { budgetDollars: 0.0001 });
    const run = await newRun({ ...tight, name: `${tight.name}-budget` });
    const at = { runId: run.runId, config: tight };
    server.reply({ kind: "object", object: answer(longer) });
    expect((await round(1, run.baseBranchId, at)).interventions[0]!.provenance.kind).toBe("llm");
    const before = server.requests.length;
    const out = await round(2, run.baseBranchId, at);
    expect(server.requests.length).toBe(before);
    expect(out.interventions.every((i) => i.provenance.kind !== "llm")).toBe(true);
    const [fallback] = await events("proposer_fallback", { runId: run.runId });
    expect(fallback!.payload).toMatchObject({ round: 2, reason: "budget", to: "rule-based", message: expect.stringMatching(/^the run's LLM budget is spent \(\$0\.\d+ of \$0\.0001\)$/) });
  });

  it(`the sealed split never appears in any request body, nor the API key in any event (${name})`, async () => {
    // The canary is really there to leak: in the run's frozen config and in a sealed rollout handed to the proposer.
    expect(JSON.stringify((await db.run.findUniqueOrThrow({ where: { id: runId } })).settings)).toContain(SEALED);
    expect(rollouts.some((r) => r.split === "sealed" && r.response!.includes(SEALED))).toBe(true);
    expect(server.requests).toHaveLength(7);
    for (const r of server.requests) {
      expect(r.raw).not.toContain(SEALED);
      expect(r.raw).not.toContain(API_KEY);
    }
    const all = await db.event.findMany({ where: { runId } });
    expect(JSON.stringify(all.map((e) => e.payload))).not.toContain(API_KEY);
  });
});
