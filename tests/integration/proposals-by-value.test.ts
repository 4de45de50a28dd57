import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import { parse } from "yaml";
import { runConfigSchema, type FactorPattern, type Intervention, type Proposer, type ProposerInput } from "@evotrainer/core";
import { createRun } from "@evotrainer/db";
import { ExecutorPool } from "../../apps/worker/src/executors/executor-pool.ts";
import { propose } from "../../apps/worker/src/loop/propose.ts";
import { loopHarness } from "../support/loop-harness.ts";

// The worker's propose step on a TRL run, with a proposer that answers as an LLM might: values TRL
// refuses among ones it runs. Nothing is launched: what matters is what the round stores.
const redisUrl = inject("redisUrl");
const harness = await loopHarness(inject("databaseUrl"), redisUrl);
const { db, prefix } = harness;
const dir = mkdtempSync(join(tmpdir(), "evo-by-value-"));

const change = (factor: string, path: string, value: unknown): Intervention => ({
  hypothesis: `if ${factor} is ${JSON.stringify(value)}, reward rises`,
  targetMetric: "reward_mean",
  factor,
  patch: [{ op: "replace", path, value }],
  expectedEffect: { direction: "up" },
  falsification: "reward_mean does not rise",
  provenance: { kind: "llm", ref: "test-model" },
});

describe("a TRL run's round, proposals checked by value", () => {
  afterAll(async () => {
    await harness.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("offers only values TRL renders, and stores a proposal outside them as rejected with TRL's reason, never as a branch", async () => {
    const org = await db.organization.create({ data: { name: prefix, slug: prefix } });
    const example = parse(readFileSync("examples/trl-math.yaml", "utf8")) as Record<string, unknown>;
    const config = runConfigSchema.parse({ ...example, name: "by-value", executor: "local", resources: { gpusPerJob: 0 }, search: { ...(example.search as object), proposer: "rule", keep: 3, control: "none", acceptUnboundedFalsePromotions: true } });
    const { runId, baseBranchId } = await createRun(db, config, { organizationId: org.id });
    // The base branch trained: the round builds on it.
    await db.branch.update({ where: { id: baseBranchId }, data: { status: "promoted" } });
    await db.run.update({ where: { id: runId }, data: { status: "running", bestBranchId: baseBranchId } });

    let offered: readonly FactorPattern[] = [];
    const answering: Proposer = {
      name: "answers-as-an-llm-might",
      propose: async (input: ProposerInput) => {
        offered = input.factors;
        return [
          change("algo.estimator", "/algo/estimator", "rloo"),
          change("algo.kl.mode", "/algo/kl/mode", "reward"),
          change("algo.lossAggregation", "/algo/lossAggregation", "seq-mean-token-sum"),
          change("algo.lr", "/algo/lr", 2e-6),
        ];
      },
    };
    const deps = harness.depsWith(new ExecutorPool(db, join(dir, "jobs"), process.env, () => {}), { proposerFor: () => answering, monitorEveryMs: 60_000 });
    expect(await propose(deps, { runId, round: 1 })).toBe("1 branch(es) and 0 control(s) queued");

    const valuesOf = (id: string) => offered.find((f) => f.pattern.join(".") === id)?.values;
    expect(valuesOf("algo.estimator")).toEqual(["dr_grpo"]);
    expect(valuesOf("algo.kl.mode")).toEqual(["none"]);
    expect(valuesOf("algo.lossAggregation")).not.toContain("seq-mean-token-sum");

    const interventions = await db.intervention.findMany({ where: { runId }, orderBy: { factor: "asc" } });
    expect(interventions.map((i) => [i.factor, i.status, i.rejectionReason])).toEqual([
      ["algo.estimator", "rejected", "unsupported_value: trl cannot run recipe factor algo.estimator: GRPOTrainer has no rloo estimator"],
      ["algo.kl.mode", "rejected", "unsupported_value: trl cannot run recipe factor algo.kl: GRPOTrainer applies KL only as a loss term (beta)"],
      ["algo.lossAggregation", "rejected", "unsupported_value: trl cannot run recipe factor algo.lossAggregation: no loss_type aggregates as seq-mean-token-sum"],
      ["algo.lr", "selected", null],
    ]);
    const rejected = await db.event.findMany({ where: { runId, type: "proposal_rejected" } });
    expect(rejected.map((e) => (e.payload as { reason: string }).reason)).toEqual(["unsupported_value", "unsupported_value", "unsupported_value"]);
    const children = await db.branch.findMany({ where: { runId, parentId: baseBranchId }, include: { intervention: true } });
    expect(children.map((b) => b.intervention?.factor)).toEqual(["algo.lr"]);
  }, 60_000);
});
