import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { TRPCError } from "@trpc/server";
import type { Rollout } from "@evotrainer/contract";
import { ingestRolloutFile } from "@evotrainer/db/ingest";
import { apiHarness } from "../support/api-harness.ts";
import { seedDashboard } from "../support/dashboard-seed.ts";

// The rollout views' API and the contract's optional per-token fields, on a real Postgres.
const harness = await apiHarness(inject("databaseUrl"), inject("redisUrl"));
const { db } = harness;
const as = (userId: string) => harness.callerAs({ userId });
let seed: Awaited<ReturnType<typeof seedDashboard>>;
const dir = mkdtempSync(join(tmpdir(), "evo-views-"));

beforeAll(async () => {
  seed = await seedDashboard(db, "views-api");
});

afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await harness.close();
});

const rollout = (sample: number, reward: number, extra: Partial<Rollout> = {}): Rollout => ({
  uid: `tok-${sample}`, split: "train", step: 40, taskId: "task-tok", groupId: "g-tok", sample, prompt: "2+2?", response: "4",
  reward, rewardComponents: { correct: reward, format: 1 }, responseTokens: 1, turns: 1, truncated: false, ...extra,
});

describe("the contract's optional advantage and per-token log-probs", () => {
  it("ingests them when a trainer records them, and a group's view uses the trainer's advantages", async () => {
    const job = await db.job.findFirstOrThrow({ where: { branchId: seed.branches.v1.id } });
    const file = join(dir, "step_40.jsonl");
    const tokens = { logprobs: [-0.25], entropies: [0.7], pieces: ["4"] };
    const lines = [rollout(0, 1, { advantage: 0.87, tokens }), rollout(1, 0, { advantage: -0.87 })];
    writeFileSync(file, lines.map((l) => `${JSON.stringify(l)}\n`).join("") + `${JSON.stringify(rollout(2, 1, { uid: "tok-bad", tokens: { logprobs: [-1], pieces: ["a", "b"] } }))}\n`);
    const pool = new pg.Pool({ connectionString: harness.database.url, max: 1 });
    try {
      const result = await ingestRolloutFile(pool, { owner: { runId: seed.run.id, branchId: seed.branches.v1.id, jobId: job.id }, file, source: "rollouts/train/step_40.jsonl", keepText: () => true });
      // Pieces that do not line up with the log-probs are refused at the boundary, naming the field.
      expect(result).toMatchObject({ inserted: 2, quarantined: 1 });
    } finally {
      await pool.end();
    }
    const quarantined = await db.quarantinedLine.findFirstOrThrow({ where: { jobId: job.id, source: "rollouts/train/step_40.jsonl" } });
    expect(quarantined.reason).toMatch(/tokens/);
    const stored = await db.rollout.findFirstOrThrow({ where: { branchId: seed.branches.v1.id, uid: "tok-0" } });
    expect(stored).toMatchObject({ advantage: 0.87, tokens });

    const group = await as(seed.users.viewer.id).rolloutViews.group({ rolloutId: String(stored.id) });
    expect(group).toMatchObject({ groupId: "g-tok", dead: false, advantageSource: "recorded by the trainer" });
    expect(group.members.map((m) => m.advantage)).toEqual([0.87, -0.87]);
    const byId = await as(seed.users.viewer.id).rollout.byId({ rolloutId: String(stored.id) });
    expect(byId).toMatchObject({ imported: false, tokens });
  });

  it("recomputes GRPO advantages where none were recorded, and finds dead groups", async () => {
    await db.rollout.createMany({
      data: [1, 1, 1].map((reward, sample) => ({ runId: seed.run.id, branchId: seed.branches.v1.id, split: "train" as const, step: 50, taskId: "task-dead", groupId: "g-dead", sample, reward, responseTokens: 3, uid: `dead-${sample}` })),
    });
    const dead = await as(seed.users.viewer.id).rolloutViews.deadGroups({ branchId: seed.branches.v1.id });
    expect(dead).toEqual([expect.objectContaining({ step: 50, groupId: "g-dead", size: 3, reward: 1 })]);
    const group = await as(seed.users.viewer.id).rolloutViews.group({ rolloutId: dead[0]!.firstId });
    expect(group).toMatchObject({ dead: true, advantageSource: "recomputed as GRPO does" });
    expect(group.members.map((m) => m.advantage)).toEqual([0, 0, 0]);
  });

  it("follows one task across steps and branches, and each reward component's share per step", async () => {
    const history = await as(seed.users.viewer.id).rolloutViews.taskHistory({ runId: seed.run.id, taskId: "task-0", branchIds: [seed.branches.v1.id, seed.branches.v2.id] });
    expect(history.branches.map((b) => b.version)).toEqual([1, 2]);
    expect(history.points.filter((p) => p.branchId === seed.branches.v1.id).map((p) => p.step)).toEqual([0, 10, 20]);
    const shares = await as(seed.users.viewer.id).rolloutViews.rewardComponents({ branchId: seed.branches.v1.id });
    expect(shares.components).toEqual(["correct", "format"]);
    const at40 = shares.steps.find((s) => s.step === 40)!;
    expect(at40.byComponent.correct).toEqual({ mean: 0.5, share: 1 / 3 });
  });
});

describe("overriding a policy veto", () => {
  it("is closed on a completed run, and the API says so before asking for a reason", async () => {
    const { v3 } = seed.branches;
    await db.decision.create({ data: { branchId: v3.id, stage: "completion", kind: "veto", actorType: "policy", reason: "validity_limit over" } });
    expect((await as(seed.users.approver.id).branch.byId({ branchId: v3.id })).vetoOverride).toEqual({ open: true });
    await expect(as(seed.users.approver.id).decision.overrideVeto({ branchId: v3.id, reason: "" })).rejects.toMatchObject({ code: "BAD_REQUEST", message: "overriding the policy's veto needs a reason" });

    await db.run.update({ where: { id: seed.run.id }, data: { status: "completed" } });
    expect((await as(seed.users.approver.id).branch.byId({ branchId: v3.id })).vetoOverride).toMatchObject({ open: false, reason: "run_finished" });
    const refused = await as(seed.users.approver.id).decision.overrideVeto({ branchId: v3.id, reason: "" }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(TRPCError);
    expect(refused).toMatchObject({ code: "PRECONDITION_FAILED", message: "the run is completed: its result no longer changes" });
    expect(await db.decision.count({ where: { branchId: v3.id } })).toBe(1);
  });
});
