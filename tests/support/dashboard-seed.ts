import { createHash, randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { parse } from "yaml";
import { detectorSchema, MATH_DETECTORS, runConfigSchema } from "@evotrainer/core";
import { json, type Database, type Role } from "@evotrainer/db";
import { createLocalUser } from "@evotrainer/api";

export const SEED_PASSWORD = "correct horse battery staple";

// The run config the seeded run claims to have been created with: the demo's, human-gated.
const config = runConfigSchema.parse({
  ...(parse(readFileSync("examples/gym-swe.yaml", "utf8")) as Record<string, unknown>),
  domain: "math",
  autonomy: { mode: "human_gated" },
  budget: { gpuSeconds: 3600, branches: 20, rounds: 5 },
});

const hash = (s: string) => createHash("sha256").update(s).digest("hex");

/**
 * A run as the loop leaves it mid-way, written straight to the database: a base branch, two
 * branches awaiting a decision (one with a failing verdict), one rejected, one training; metrics,
 * label aggregates, labelled rollouts with evidence spans, events, a harness version and a skill.
 */
export async function seedDashboard(db: Database, name = "math-gym-demo") {
  const tag = randomBytes(3).toString("hex");
  const org = await db.organization.create({ data: { name: `Org ${tag}`, slug: `org-${tag}` } });
  const users = {} as Record<Role, { id: string; email: string }>;
  for (const role of ["admin", "approver", "viewer"] as const) {
    const email = `${role}-${tag}@example.test`;
    const user = await createLocalUser(db, { email, name: `${role[0]!.toUpperCase()}${role.slice(1)} ${tag}`, password: SEED_PASSWORD, organizationId: org.id, role });
    users[role] = { id: user.id, email };
  }

  // The catalog's own detectors, stored as createRun stores them, so a live run beside the seed shares the rows.
  const detectors = await Promise.all(
    ["math.truncated", "math.repetition_loop"].map((key) => {
      const d = detectorSchema.parse(MATH_DETECTORS.find((x) => x.id === key));
      return db.detector.upsert({
        where: { key_version: { key: d.id, version: d.version } },
        update: {},
        create: { key: d.id, label: d.label, version: d.version, domains: d.domains, cel: d.when, evidenceCel: d.evidence ?? null, description: d.description, validity: d.validity, testCases: json(d.cases) },
      });
    }),
  );
  const [truncated, repetition] = detectors as [(typeof detectors)[number], (typeof detectors)[number]];

  const run = await db.run.create({
    data: {
      organizationId: org.id,
      createdById: users.admin.id,
      name: `${name}-${tag}`,
      domain: "math",
      // Paused: a worker running beside the tests (the e2e quickstart's) must not pick it up and train.
      status: "paused",
      basePolicy: "gym:math-base",
      settings: json(config),
      evaluationProtocol: json(config.evaluation),
      autonomyPolicy: json(config.autonomy),
      budget: json(config.budget),
      gpuSecondsUsed: 1234,
      round: 2,
    },
  });
  const harness = await db.harnessVersion.create({
    data: {
      runId: run.id,
      version: 1,
      domain: "math",
      metrics: {},
      healthRules: [{ id: "dead-groups-crit", version: 1, level: "CRIT", layer: "signal", description: "Most GRPO groups carry no signal", when: "dead_group_ratio > 0.5" }],
      gatePolicy: { resamples: 1000, confidence: 0.95 },
      evidence: { registeredBecause: "catalog defaults for math" },
      detectors: { create: detectors.map((d) => ({ detectorId: d.id })) },
    },
  });
  await db.run.update({ where: { id: run.id }, data: { harnessVersionId: harness.id } });

  const recipeOf = async (algo: Record<string, unknown>) => {
    const canonical = JSON.stringify({ algo, data: { dynamicSampling: false }, reward: { correct: 1 } });
    return db.recipe.upsert({ where: { hash: hash(canonical) }, update: {}, create: { hash: hash(canonical), canonical } });
  };
  const baseRecipe = await recipeOf({ lr: 1e-6, maxResponseTokens: 512, temperature: 1 });
  const base = await db.branch.create({ data: { runId: run.id, version: 0, round: 0, status: "promoted", recipeId: baseRecipe.id, promotionScore: 0.42 } });
  await db.run.update({ where: { id: run.id }, data: { bestBranchId: base.id } });

  const child = async (opts: {
    version: number;
    status: "awaiting_decision" | "rejected" | "training";
    parentId: string;
    factor: string;
    algo: Record<string, unknown>;
    hypothesis: string;
    score: number | null;
    passed?: boolean;
  }) => {
    const recipe = await recipeOf(opts.algo);
    const intervention = await db.intervention.create({
      data: {
        runId: run.id,
        parentBranchId: opts.parentId,
        round: 1,
        hypothesis: opts.hypothesis,
        targetMetric: "truncation_rate",
        factor: opts.factor,
        patch: [{ op: "replace", path: `/algo/${opts.factor}`, value: opts.algo[opts.factor] as number }],
        expectedEffect: { direction: "down", size: 0.1 },
        falsification: "truncation rate does not drop by 5 points",
        provenance: "rule",
        status: "selected",
        backtest: {
          create: {
            // The shape core's backtest() writes (BacktestReport).
            report: {
              rollouts: 640,
              groups: 80,
              kept: { before: 640, after: 640 },
              deadGroups: { before: 31, after: 24, rescued: 7, killed: 0, filteredOut: { before: 0, after: 0 } },
              orderingViolations: { before: 0, after: 0, introduced: 0, groupsAffected: 0, exampleUids: [] },
              advantageByLabel: {
                _success: { count: 250, before: { scaled: 0.52, unscaled: 0.2 }, after: { scaled: 0.55, unscaled: 0.21 } },
                truncated: { count: 128, before: { scaled: -0.31, unscaled: -0.12 }, after: { scaled: -0.48, unscaled: -0.19 } },
                repetition_loop: { count: 91, before: { scaled: -0.44, unscaled: -0.17 }, after: { scaled: -0.52, unscaled: -0.2 } },
              },
              wronglyCut: { count: 3, rateOfSuccesses: 0.012, exampleUids: [] },
              metrics: { before: { truncation_rate: 0.2 }, after: { truncation_rate: 0.14 } },
              predicted: { metric: "truncation_rate", direction: "down", size: 0.061, basis: "direct", agreesWithExpectation: true },
            },
            predictedEffect: 0.061,
            realisedEffect: opts.score === null ? null : -0.19,
            rank: 1,
            kept: true,
          },
        },
      },
    });
    const branch = await db.branch.create({
      data: { runId: run.id, parentId: opts.parentId, version: opts.version, round: 1, status: opts.status, recipeId: recipe.id, interventionId: intervention.id, promotionScore: opts.score },
    });
    if (opts.score !== null) {
      const delta = opts.score - 0.42;
      await db.verdict.create({
        data: {
          branchId: branch.id,
          passed: opts.passed ?? true,
          promotionScore: opts.score,
          parentScore: 0.42,
          bestScore: 0.42,
          deltaVsParent: delta,
          ciLow: delta - 0.03,
          ciHigh: delta + 0.03,
          checks: [
            { name: "main_score_vs_parent", passed: opts.passed ?? true, detail: `delta ${delta.toFixed(4)}`, numbers: { delta, ciLow: delta - 0.03, ciHigh: delta + 0.03 } },
            { name: "targeted_metric", passed: true, detail: "truncation_rate moved down", numbers: { before: 0.31, after: 0.12, delta: -0.19, expected: "down" } },
            { name: "validity_limit", passed: true, detail: "repetition_loop under 5%", numbers: { rate: 0.02, limit: 0.05 } },
          ],
        },
      });
    }
    await db.job.create({
      data: {
        branchId: branch.id,
        executor: "local",
        adapter: "gym",
        state: opts.status === "training" ? "running" : opts.status === "rejected" ? "failed" : "succeeded",
        failureClass: opts.status === "rejected" ? "oom" : null,
        attempts: 1,
        logTail: "step 10 reward_mean=0.51\nstep 20 reward_mean=0.55\n",
      },
    });
    return branch;
  };
  const v1 = await child({ version: 1, status: "awaiting_decision", parentId: base.id, factor: "maxResponseTokens", algo: { lr: 1e-6, maxResponseTokens: 1024, temperature: 1 }, hypothesis: "If the response budget doubles then truncation falls because long derivations stop being cut.", score: 0.51 });
  const v2 = await child({ version: 2, status: "awaiting_decision", parentId: base.id, factor: "temperature", algo: { lr: 1e-6, maxResponseTokens: 512, temperature: 0.8 }, hypothesis: "If temperature drops then repetition loops fall because sampling is less degenerate.", score: 0.4, passed: false });
  const v3 = await child({ version: 3, status: "rejected", parentId: base.id, factor: "lr", algo: { lr: 3e-6, maxResponseTokens: 512, temperature: 1 }, hypothesis: "If the learning rate triples then reward rises faster.", score: 0.38, passed: false });
  const v4 = await child({ version: 4, status: "training", parentId: v1.id, factor: "temperature", algo: { lr: 1e-6, maxResponseTokens: 1024, temperature: 0.9 }, hypothesis: "If temperature drops a little on top of v1 then repetition falls.", score: null });

  for (const [branch, lift] of [[base, 0], [v1, 0.08], [v2, -0.01]] as const) {
    await db.metricPoint.createMany({
      data: Array.from({ length: 10 }, (_, i) => i * 10).flatMap((step) => [
        { branchId: branch.id, step, name: "train/reward_mean", value: 0.3 + lift + step / 400 },
        { branchId: branch.id, step, name: "train/dead_group_ratio", value: 0.4 - step / 300 },
        { branchId: branch.id, step, name: "train/truncation_rate", value: 0.3 - lift - step / 1000 },
      ]),
    });
  }

  // Rollouts of v1 at steps 0, 10, 20: every fifth is truncated, every seventh loops, with evidence.
  const loop = "so the answer is so the answer is so the answer is";
  const rollouts = Array.from({ length: 60 }, (_, i) => {
    const loops = i % 7 === 3;
    const response = loops ? `Let me compute 12*${i}. ${loop} ${12 * i}.` : `We multiply 12 by ${i}: the answer is \\boxed{${12 * i}}.`;
    return {
      runId: run.id,
      branchId: v1.id,
      split: "train" as const,
      step: (i % 3) * 10,
      taskId: `task-${i % 20}`,
      groupId: `g-${i % 20}`,
      sample: Math.floor(i / 20),
      reward: loops ? 0 : i % 5 === 0 ? 0.2 : 1,
      rewardComponents: { correct: loops ? 0 : 1, format: 1 },
      responseTokens: i % 5 === 0 ? 1024 : 200 + i,
      truncated: i % 5 === 0,
      finishReason: i % 5 === 0 ? "length" : "stop",
      prompt: `What is 12 times ${i}?`,
      response,
      uid: `v1-${i}`,
    };
  });
  await db.rollout.createMany({ data: rollouts });
  // Same tasks on v2 for the side-by-side comparison.
  await db.rollout.createMany({
    data: rollouts.slice(0, 20).map((r) => ({ ...r, branchId: v2.id, uid: `v2-${r.uid}`, response: `v2 says ${r.response}` })),
  });
  const stored = await db.rollout.findMany({ where: { branchId: v1.id }, orderBy: { id: "asc" }, select: { id: true, step: true, response: true, truncated: true, uid: true } });
  const labels = stored.flatMap((r) => {
    const out = [];
    if (r.truncated) out.push({ rolloutId: r.id, branchId: v1.id, split: "train" as const, step: r.step, label: "truncated", detectorId: truncated.id, evidence: { finish_reason: "length", response_tokens: 1024 } });
    const start = r.response!.indexOf(loop);
    if (start >= 0) {
      out.push({ rolloutId: r.id, branchId: v1.id, split: "train" as const, step: r.step, label: "repetition_loop", detectorId: repetition.id, evidence: { found: true, start, end: start + loop.length, text: loop } });
    }
    return out;
  });
  await db.rolloutLabel.createMany({ data: labels });
  for (const step of [0, 10, 20]) {
    const atStep = labels.filter((l) => l.step === step);
    for (const d of [truncated, repetition]) {
      await db.labelStat.create({ data: { branchId: v1.id, split: "train", step, label: d.label, detectorId: d.id, count: atStep.filter((l) => l.detectorId === d.id).length, total: 20 } });
    }
  }

  await db.event.createMany({
    data: [
      { runId: run.id, type: "run_started", actor: "system", payload: {} },
      { runId: run.id, branchId: v1.id, type: "proposal", actor: "proposer:rule", payload: { factor: "maxResponseTokens" } },
      { runId: run.id, branchId: v1.id, type: "backtest", actor: "worker", payload: { predictedEffect: 0.061 } },
      { runId: run.id, branchId: v1.id, type: "diagnosis", actor: "worker", payload: { layers: { score: [{ id: "score-flat", level: "INFO", message: "score rising" }], signal: [], behaviour: [{ id: "truncation-warn", level: "WARN", message: "truncation above 10%" }] } } },
      { runId: run.id, branchId: v1.id, type: "verdict", actor: "worker", payload: { passed: true } },
      { runId: run.id, branchId: v3.id, type: "verdict", actor: "worker", payload: { passed: false } },
    ],
  });

  const skill = await db.skill.create({
    data: {
      organizationId: org.id,
      name: `raise-response-budget-${tag}`,
      trigger: "truncation_rate > 0.2",
      template: { factor: "maxResponseTokens", op: "multiply", by: 2 },
      expectedOutcome: "truncation falls, score rises",
      evidence: { runs: 1 },
      domains: ["math"],
      successCount: 3,
      failureCount: 1,
    },
  });
  const v1Intervention = await db.branch.findUniqueOrThrow({ where: { id: v1.id }, select: { interventionId: true } });
  await db.skillApplication.create({ data: { skillId: skill.id, interventionId: v1Intervention.interventionId!, outcome: "pending" } });

  return { org, users, run, branches: { base, v1, v2, v3, v4 }, detectors: { truncated, repetition } };
}
