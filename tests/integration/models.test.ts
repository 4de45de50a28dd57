import { afterAll, describe, expect, inject, it } from "vitest";
import { createDatabase, Prisma } from "@evotrainer/db";

/**
 * A freshly migrated database has the schema Prisma expects: every model can be created and read
 * back with all its scalar fields. The last test fails when a model is added without coverage here.
 */
describe("every model round-trips through the migrated database", () => {
  const db = createDatabase(inject("databaseUrl"));
  const covered = new Set<string>();
  afterAll(() => db.$disconnect());

  it("creates and reads the whole domain of a run", async () => {
    const user = await db.user.create({ data: { email: "ada@example.com", name: "Ada" } });
    const org = await db.organization.create({ data: { name: "Lab", slug: "lab" } });
    await db.membership.create({ data: { organizationId: org.id, userId: user.id, role: "approver" } });
    await db.session.create({ data: { userId: user.id, token: "session-token-hash", expiresAt: new Date(Date.now() + 3_600_000) } });
    await db.account.create({ data: { userId: user.id, accountId: user.id, providerId: "credential", password: "scrypt$…" } });
    await db.verification.create({ data: { identifier: "ada@example.com", value: "code", expiresAt: new Date() } });
    await db.apiKey.create({ data: { name: "cli", start: "evo_ab", keyHash: "sha256-of-key", userId: user.id } });
    await db.invitation.create({ data: { organizationId: org.id, email: "grace@example.com", role: "viewer", expiresAt: new Date(Date.now() + 3_600_000), inviterId: user.id } });
    covered.add("User").add("Organization").add("Membership").add("Session").add("Account").add("Verification").add("ApiKey").add("Invitation");

    const harness = await db.harnessVersion.create({
      data: { version: 1, domain: "swe", metrics: ["reward_mean"], healthRules: [{ when: "dead_group_ratio > 0.5", level: "CRIT" }], gatePolicy: {} },
    });
    const detector = await db.detector.create({
      data: {
        key: "models.test_tampering",
        label: "test_tampering",
        domains: ["swe"],
        version: 1,
        cel: "rollout.files_touched.exists(f, f.startsWith('tests/'))",
        description: "the patch edits test files",
        validity: true,
        testCases: [{ expect: "match" }],
      },
    });
    await db.harnessDetector.create({ data: { harnessVersionId: harness.id, detectorId: detector.id } });
    covered.add("HarnessVersion").add("Detector").add("HarnessDetector");

    const run = await db.run.create({
      data: {
        organizationId: org.id,
        createdById: user.id,
        name: "swe-gym",
        domain: "swe",
        basePolicy: "gym:swe-base",
        settings: { proposals: 4, keep: 2 },
        evaluationProtocol: { promotion: { tasks: 100 }, sealed: { tasks: 100 } },
        autonomyPolicy: { mode: "human_gated" },
        budget: { gpuSeconds: 3600, branches: 20, rounds: 6 },
        harnessVersionId: harness.id,
      },
    });
    const recipe = await db.recipe.create({ data: { hash: "a".repeat(64), canonical: '{"algo":{"lr":1e-6}}' } });
    const base = await db.branch.create({ data: { runId: run.id, version: 0, round: 0, recipeId: recipe.id, status: "promoted" } });
    const intervention = await db.intervention.create({
      data: {
        runId: run.id,
        parentBranchId: base.id,
        round: 1,
        hypothesis: "if tampering is penalised then reward tracks the locked grader because hacks stop paying",
        targetMetric: "label_rate.test_tampering",
        factor: "reward.components.tamper_penalty.weight",
        patch: [{ op: "replace", path: "/reward/components/tamper_penalty/weight", value: 1 }],
        expectedEffect: { direction: "down", size: 0.2 },
        falsification: "tampering rate does not fall",
        provenance: "rule",
      },
    });
    const child = await db.branch.create({
      data: { runId: run.id, parentId: base.id, version: 1, round: 1, recipeId: recipe.id, interventionId: intervention.id },
    });
    await db.run.update({ where: { id: run.id }, data: { bestBranchId: base.id } });
    covered.add("Run").add("Recipe").add("Branch").add("Intervention");

    const node = await db.gpuNode.create({ data: { name: "gpu-1", executor: "ssh", host: "10.0.0.5", user: "train", keyRef: "env:EVO_SSH_KEY", gpuCount: 8 } });
    const job = await db.job.create({ data: { branchId: child.id, executor: "ssh", adapter: "verl", nodeId: node.id, gpuCount: 8, outputUri: "sftp://gpu-1/jobs/1" } });
    await db.ingestCursor.create({ data: { jobId: job.id, file: "rollouts/train/step_1.jsonl", byteOffset: 4096n, lineNumber: 12 } });
    // Which attempt of the job owns a step's rows: a retry's first line of a step takes it over.
    await db.stepAttempt.create({ data: { jobId: job.id, stream: "train", step: 1, attempt: 2 } });
    expect((await db.job.findUniqueOrThrow({ where: { id: job.id }, include: { stepAttempts: true } })).stepAttempts.map((s) => s.attempt)).toEqual([2]);
    covered.add("GpuNode").add("Job").add("IngestCursor").add("StepAttempt");

    const rollout = await db.rollout.create({
      data: {
        runId: run.id,
        branchId: child.id,
        jobId: job.id,
        split: "train",
        step: 1,
        taskId: "task-1",
        groupId: "task-1@1",
        sample: 0,
        reward: 1,
        rewardComponents: { correctness: 1 },
        responseTokens: 512,
        turns: 7,
        finishReason: "stop",
        trajectory: [{ role: "assistant", content: "edit tests/test_x.py" }],
        uid: "1-task-1-0",
      },
    });
    await db.rolloutLabel.create({
      data: { rolloutId: rollout.id, branchId: child.id, split: "train", step: 1, label: "test_tampering", detectorId: detector.id, evidence: { span: [0, 20] } },
    });
    await db.labelStat.create({ data: { branchId: child.id, split: "train", step: 1, label: "test_tampering", detectorId: detector.id, count: 1, total: 1 } });
    await db.metricPoint.create({ data: { branchId: child.id, step: 1, name: "train/reward_mean", value: 1 } });
    await db.quarantinedLine.create({ data: { runId: run.id, branchId: child.id, jobId: job.id, source: "rollouts/train/step_1.jsonl", lineNumber: 3, reason: "reward: expected number", raw: '{"reward":"x"}' } });
    covered.add("Rollout").add("RolloutLabel").add("LabelStat").add("MetricPoint").add("QuarantinedLine");

    const review = await db.review.create({
      data: { runId: run.id, branchId: child.id, rolloutId: rollout.id, label: "test_tampering", detectorId: detector.id, flagged: true, verdict: "confirmed", reviewer: "Ada", note: "edits the test", stratum: "flagged", weight: 2.5 },
    });
    expect(await db.review.findUniqueOrThrow({ where: { id: review.id } })).toMatchObject({ verdict: "confirmed", flagged: true, weight: 2.5, reviewer: "Ada" });
    covered.add("Review");

    await db.stepStat.create({ data: { branchId: child.id, split: "train", step: 1, rollouts: 1, rewarded: 1, rewardSum: "1", truncated: 0, responseTokens: 512n, groups: 0, deadGroups: 0 } });
    await db.stepGroupStat.create({ data: { branchId: child.id, split: "train", step: 1, groupId: "task-1@1", rewarded: 1, minReward: 1, maxReward: 1 } });
    expect((await db.stepStat.findUniqueOrThrow({ where: { branchId_split_step: { branchId: child.id, split: "train", step: 1 } } })).rewardSum.toString()).toBe("1");
    covered.add("StepStat").add("StepGroupStat");

    await db.rolloutSearch.create({ data: { rolloutId: rollout.id, branchId: child.id, split: "train", step: rollout.step, taskId: "task-1", prompt: null, response: null, complete: true } });
    await db.rolloutSearchProgress.create({ data: { branchId: child.id, indexedThrough: rollout.id, settledThrough: rollout.id, observedWriters: ["3/42"] } });
    covered.add("RolloutSearch").add("RolloutSearchProgress");

    await db.backtest.create({ data: { interventionId: intervention.id, report: { deadGroupsRescued: 3 }, predictedEffect: -0.2, kept: true, rank: 1 } });
    await db.verdict.create({ data: { branchId: child.id, passed: true, checks: [{ name: "score_not_regressed", passed: true }], promotionScore: 0.61, parentScore: 0.55, deltaVsParent: 0.06, ciLow: 0.02, ciHigh: 0.1 } });
    await db.decision.create({ data: { branchId: child.id, kind: "approve", actorType: "human", userId: user.id, reason: "tampering gone, score up" } });
    covered.add("Backtest").add("Verdict").add("Decision");

    const skill = await db.skill.create({
      data: { organizationId: org.id, name: "penalise tampering", trigger: "label_rate.test_tampering > 0.05", template: {}, expectedOutcome: "tampering falls", evidence: {}, domains: ["swe"] },
    });
    await db.skillApplication.create({ data: { skillId: skill.id, interventionId: intervention.id, outcome: "success" } });
    await db.event.create({ data: { runId: run.id, branchId: child.id, type: "decision", actor: `user:${user.id}`, payload: { kind: "approve" } } });
    await db.shareLink.create({ data: { runId: run.id, tokenHash: "b".repeat(64), createdById: user.id, expiresAt: new Date(Date.now() + 86_400_000) } });
    covered.add("Skill").add("SkillApplication").add("Event").add("ShareLink");

    const webhook = await db.notificationWebhook.create({
      data: { id: "hook-1", organizationId: org.id, name: "team channel", kind: "slack", sealedUrl: Buffer.from("sealed"), urlOrigin: "https://hooks.slack.com" },
    });
    const outbox = await db.notificationOutbox.create({ data: { organizationId: org.id, runId: run.id, kind: "run_paused", notification: { summary: "paused" } } });
    await db.notificationDelivery.create({ data: { outboxId: outbox.id, webhookId: webhook.id, attempts: 1, lastStatus: 200, status: "delivered", deliveredAt: new Date() } });
    const calibration = await db.gateCalibration.create({
      data: {
        organizationId: org.id,
        runId: run.id,
        domain: "swe",
        configHash: "f7748a32abd8",
        seed: 1,
        trials: 10,
        nullCandidates: 20,
        falsePromotions: 0,
        falsePromotionRate: 0,
        falsePromotionLow: 0,
        falsePromotionHigh: 0.088,
        power: [{ arm: "dynamic sampling", n: 10, promoted: 10 }],
        gateParameters: { alpha: 0.05 },
      },
    });
    expect((await db.notificationDelivery.findFirstOrThrow({ where: { webhookId: webhook.id }, include: { outbox: true } })).outbox.kind).toBe("run_paused");
    expect((await db.gateCalibration.findUniqueOrThrow({ where: { id: calibration.id } })).falsePromotionHigh).toBe(0.088);
    covered.add("NotificationWebhook").add("NotificationOutbox").add("NotificationDelivery").add("GateCalibration");

    // Read back through the relations the dashboard will use.
    const loaded = await db.run.findUniqueOrThrow({
      where: { id: run.id },
      include: {
        branches: { include: { intervention: { include: { backtest: true } }, verdict: true, decisions: true, jobs: { include: { node: true, ingestCursors: true } } } },
        bestBranch: true,
        harnessVersion: { include: { detectors: { include: { detector: true } } } },
        events: true,
        shareLinks: true,
        quarantinedLines: true,
      },
    });
    const loadedChild = loaded.branches.find((b) => b.id === child.id)!;
    expect(loaded.bestBranch?.id).toBe(base.id);
    expect(loadedChild.intervention?.backtest?.predictedEffect).toBe(-0.2);
    expect(loadedChild.verdict?.ciLow).toBe(0.02);
    expect(loadedChild.decisions[0]?.kind).toBe("approve");
    expect(loadedChild.jobs[0]?.node?.gpuCount).toBe(8);
    expect(loadedChild.jobs[0]?.ingestCursors[0]?.byteOffset).toBe(4096n);
    expect(loaded.harnessVersion?.detectors[0]?.detector.validity).toBe(true);
    expect(loaded.events).toHaveLength(1);
    expect(loaded.shareLinks[0]?.scope).toBe("run_read");
    expect(loaded.quarantinedLines[0]?.lineNumber).toBe(3);

    const labels = await db.rolloutLabel.findMany({ where: { branchId: child.id, step: 1, label: "test_tampering" }, include: { rollout: true } });
    expect(labels.map((l) => l.rollout.uid)).toEqual(["1-task-1-0"]);
    expect((await db.labelStat.findFirstOrThrow({ where: { branchId: child.id } })).count).toBe(1);
    expect((await db.metricPoint.findFirstOrThrow({ where: { branchId: child.id } })).value).toBe(1);
    expect((await db.rolloutSearch.findUniqueOrThrow({ where: { rolloutId: rollout.id }, include: { rollout: true } })).rollout.uid).toBe("1-task-1-0");
    expect((await db.rolloutSearchProgress.findUniqueOrThrow({ where: { branchId: child.id } })).observedWriters).toEqual(["3/42"]);
    expect((await db.skillApplication.findFirstOrThrow({ where: { skillId: skill.id }, include: { skill: true } })).skill.domains).toEqual(["swe"]);
    expect((await db.membership.findFirstOrThrow({ where: { userId: user.id } })).role).toBe("approver");
    expect(await db.session.count({ where: { userId: user.id } })).toBe(1);
    expect(await db.account.count({ where: { userId: user.id } })).toBe(1);
    expect(await db.apiKey.count({ where: { userId: user.id } })).toBe(1);
    expect(await db.verification.count({ where: { identifier: "ada@example.com" } })).toBe(1);
  });

  it("keeps a rollout uid unique per branch, so re-ingest never duplicates", async () => {
    const existing = await db.rollout.findFirstOrThrow({ where: { uid: "1-task-1-0", branch: { run: { name: "swe-gym" } } } });
    const { id: _id, createdAt: _createdAt, ...row } = existing;
    const again = await db.rollout.createMany({ data: [{ ...row, rewardComponents: {}, trajectory: Prisma.JsonNull, groundTruth: Prisma.JsonNull, testResults: Prisma.JsonNull, extra: Prisma.JsonNull, tokens: Prisma.JsonNull }], skipDuplicates: true });
    expect(again.count).toBe(0);
    expect(await db.rollout.count({ where: { branchId: existing.branchId } })).toBe(1);
  });

  it("rejects any UPDATE of the append-only event ledger", async () => {
    const event = await db.event.findFirstOrThrow({ where: { type: "decision", actor: { startsWith: "user:" }, run: { name: "swe-gym" } } });
    await expect(db.event.update({ where: { id: event.id }, data: { type: "rewritten" } })).rejects.toThrow(/append-only/);
    expect((await db.event.findUniqueOrThrow({ where: { id: event.id } })).type).toBe("decision");
  });

  it("covers every model of the Prisma schema", () => {
    expect([...covered].sort()).toEqual(Object.values(Prisma.ModelName).sort());
  });
});
