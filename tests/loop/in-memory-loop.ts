import type { Rollout } from "@evotrainer/contract";
import {
  baselineChecks,
  consecutiveFailures,
  DEFAULT_HEALTH_RULES,
  DETECTOR_CATALOG,
  FACTOR_PATTERNS,
  FINAL_TRAIN_STEPS,
  gateFor,
  healthReport,
  learnFromBranch,
  lockedEvaluationOf,
  planRound,
  policyDecision,
  recipeHash,
  recipeScore,
  retrieveSkills,
  verdict as judge,
  type BacktestReport,
  type BranchRollouts,
  type Decision,
  type DetectorDefinition,
  type GateStage,
  type HealthReport,
  type Intervention,
  type PlannedIntervention,
  type Proposer,
  type Recipe,
  type RunConfig,
  type Skill,
  type Verdict,
} from "@evotrainer/core";
import { evaluateSplit, type Policy } from "@evotrainer/gym";
import { RuleBasedProposer } from "@evotrainer/proposers";
import { gateSide, LabelStore, trainGymBranch, type ScoredSide } from "@evotrainer/gym";
import { checkHarness, compiled, type HarnessCheck, type HarnessVersion } from "./harness-check.ts";
import { lineageOf } from "./lineage.ts";

// The gym renders every recipe (packages/adapters/src/offered-factors.test.ts walks it).
const gymRenders = () => ({ ok: true as const });

export interface InMemoryLoopOptions {
  config: RunConfig;
  runId: string;
  /** The gym's adapter knobs (job.adapter), e.g. a smaller `tasksPerStep`. */
  adapter?: Record<string, unknown>;
  /** Detectors of harness v1; the domain's catalog (as create-run.ts registers it) when absent. */
  detectors?: readonly DetectorDefinition[];
  /** The organization's skill library before the run: skills carry over between runs and domains. */
  skills?: readonly Skill[];
  proposer?: Proposer;
}

export interface LoopBranch {
  id: string;
  version: number;
  round: number;
  parentId?: string;
  recipe: Recipe;
  recipeHash: string;
  intervention?: Intervention;
  /** The backtest on the parent's rollouts that ranked this intervention among the round's proposals. */
  backtest?: BacktestReport;
  rank?: number;
  policy: Policy;
  /** Trainer metrics per step, step 1 first. */
  steps: Record<string, number>[];
  /** Training rollouts of the final steps, and the promotion split's rollouts (locked grader). */
  train: Rollout[];
  promotion: Rollout[];
  maxResponseTokens: number;
  /** Mean training reward (the branch recipe's own reward) over the final steps. */
  trainReward: number;
  /**
   * The run's starting reward (v0's recipe) on the same final training rollouts: one yardstick for
   * every branch, since an intervention on the reward changes its scale.
   */
  baseReward: number;
  /** Mean promotion task score as the gate counts it. */
  score: number;
  /** The harness version the branch was judged under, and its health report of the final steps. */
  harnessVersion: number;
  report: HealthReport;
  verdict: Verdict;
  decision: Decision;
  status: "promoted" | "rejected";
}

export interface LoopRound {
  round: number;
  frontierId: string;
  /** The frontier's diagnosis under the harness the round proposed with (after any evolution). */
  diagnosis: HealthReport;
  harnessCheck: HarnessCheck;
  /** Skills whose trigger fired on the diagnosis, this domain's first. */
  retrieved: { skillId: string; name: string; sameDomain: boolean }[];
  proposals: Intervention[];
  planned: PlannedIntervention[];
  children: string[];
  /** The best-so-far branch after the round settled. */
  bestAfter: string;
}

export interface SkillEvent {
  round: number;
  branchId: string;
  success: boolean;
  created?: Skill;
  updated: string[];
}

export interface LoopHistory {
  runId: string;
  config: RunConfig;
  branches: LoopBranch[];
  rounds: LoopRound[];
  harnessVersions: HarnessVersion[];
  skillEvents: SkillEvent[];
  /** The skill library at the end of the run (the input library plus what the run learned). */
  skills: Skill[];
  bestId: string;
  finishedBecause: string;
  sealed: { branchId: string; score: number };
}

const mean = (xs: readonly number[]) => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length);

/**
 * The EvoTrainer loop of DESIGN.md ("The loop, step by step") driven in memory, mirroring the worker's
 * steps (apps/worker/src/loop): the base branch v0 is trained and judged on its own, and is the
 * reference whatever its verdict; then every round diagnoses the best-so-far branch's last training
 * steps, checks the harness for a diagnostic gap (evolving it when one shows), asks the proposer for
 * K interventions, backtests them on the frontier's rollouts and keeps B, trains each child from the
 * frontier's policy, judges it against its parent and the best-so-far branch, follows the autonomy
 * policy's decision, learns skills, and moves the best on a promotion with a higher score. The run
 * stops on the branch or round budget (GPU-seconds are not counted here), then the best branch is
 * evaluated once on the sealed split. No database, queue or files; deterministic per config seed.
 */
export async function runLoopInMemory(options: InMemoryLoopOptions): Promise<LoopHistory> {
  const { config, runId } = options;
  const domain = config.domain;
  if (domain === "custom") throw new Error("the gym has no custom domain");
  const adapter = options.adapter ?? {};
  const locked = lockedEvaluationOf(config);
  const proposer = options.proposer ?? new RuleBasedProposer({ lockedEvaluation: locked });
  const labels = new LabelStore(domain);
  let skills: Skill[] = [...(options.skills ?? [])];

  const v1 = {
    version: 1,
    detectors: [...(options.detectors ?? DETECTOR_CATALOG.filter((d) => d.domains.includes(domain)))],
    healthRules: [...DEFAULT_HEALTH_RULES],
    gate: config.gate,
  };
  const first = compiled(v1);
  const harnessVersions: HarnessVersion[] = [{ version: 1, round: 0, definition: first.definition, compiled: first }];
  const harness = () => harnessVersions.at(-1)!.compiled;

  const branches: LoopBranch[] = [];
  const rounds: LoopRound[] = [];
  const skillEvents: SkillEvent[] = [];
  const side = (b: LoopBranch): ScoredSide => gateSide(b, harness(), labels);
  // No person is asked here: a config that gates a stage cannot run in memory.
  const ungated = (stage: GateStage) => {
    const judged = branches.filter((b) => b.parentId !== undefined);
    const gate = gateFor(config.autonomy, stage, {
      consecutiveFailedBranches: consecutiveFailures(judged.map((b) => ({ verdict: b.verdict, decisions: [b.decision] }))),
      finishedBranchesInDomain: branches.length,
    });
    if (gate.gated) throw new Error(`the ${stage} gate asks a person (${gate.reasons.join("; ")}); the in-memory loop runs full autonomy only`);
  };

  const train = (version: number, round: number, recipe: Recipe, parent?: LoopBranch) => {
    const id = `v${version}`;
    const trained = trainGymBranch({ config, runId, branchId: id, version, recipe, ...(parent ? { start: parent.policy } : {}), adapter });
    return {
      id,
      version,
      round,
      ...(parent ? { parentId: parent.id } : {}),
      recipe,
      recipeHash: recipeHash(recipe),
      policy: trained.policy,
      steps: trained.steps,
      train: trained.train,
      promotion: trained.promotion,
      maxResponseTokens: recipe.algo.maxResponseTokens,
      trainReward: mean(trained.steps.slice(-FINAL_TRAIN_STEPS).map((m) => m["critic/score/mean"]!)),
      baseReward: mean(trained.train.map((r) => recipeScore(config.recipe, r))),
    };
  };

  // Round 0: the base branch. Judged on its own health and validity (verdict.ts, judgeBaseline); the
  // reference for every later branch whatever the outcome.
  const base = train(0, 0, config.recipe);
  const baseSide = gateSide(base, harness(), labels);
  const checks = baselineChecks(baseSide.report, config.gate);
  const passed = checks.every((c) => c.passed);
  const none = { tasks: 0, delta: 0, ci: [0, 0] as [number, number], confidence: config.gate.confidence, pNotBetter: 0 };
  const v0: LoopBranch = {
    ...base,
    score: baseSide.score,
    harnessVersion: 1,
    report: baseSide.report,
    verdict: { promote: passed, checks, vsParent: none, vsBest: none },
    decision: passed
      ? { kind: "approve", stage: "completion", actor: { kind: "policy" }, note: "baseline checks passed" }
      : { kind: "veto", stage: "completion", actor: { kind: "policy" }, reason: checks.filter((c) => !c.passed).map((c) => `${c.name}: ${c.detail}`).join("; ") },
    status: passed ? "promoted" : "rejected",
  };
  branches.push(v0);
  let best = v0;
  const scoreHistory: number[] = [];
  let finishedBecause = "";

  for (;;) {
    const used = { branches: branches.length - 1, rounds: rounds.length };
    if (used.branches >= config.budget.branches) {
      finishedBecause = `branch budget spent (${used.branches} of ${config.budget.branches})`;
      break;
    }
    if (used.rounds >= config.budget.rounds) {
      finishedBecause = `round budget spent (${used.rounds} of ${config.budget.rounds})`;
      break;
    }
    const round = used.rounds + 1;
    const frontier = best;

    // 1. diagnose the frontier's last training steps.
    ungated("diagnosis");
    let frontierLabels = labels.of(frontier, harness());
    let report = healthReport(harness(), frontier.train, frontierLabels.train);
    scoreHistory.push(frontier.score);

    // 2. harness gap? replay candidate detectors over the settled branches, register those that separate.
    // The base branch was never judged against anything: it is no evidence either way.
    const settled: BranchRollouts[] = branches.filter((b) => b.parentId).map((b) => ({
      branchId: b.id,
      outcome: b.status,
      rollouts: b.train,
      context: { maxResponseTokens: b.maxResponseTokens },
    }));
    const { check, next } = checkHarness({
      round,
      domain,
      current: harnessVersions.at(-1)!,
      report,
      rollouts: frontier.train,
      labels: frontierLabels.train,
      scoreHistory,
      branches: settled,
      successThreshold: config.gate.successThreshold,
      rounds: config.budget.rounds,
    });
    if (next) {
      harnessVersions.push(next);
      frontierLabels = labels.of(frontier, harness());
      report = healthReport(harness(), frontier.train, frontierLabels.train);
    }

    // 3. propose K; 4. check, backtest on the frontier's rollouts, keep B (propose.ts).
    ungated("design");
    const lineage = lineageOf(branches);
    const retrieved = retrieveSkills(skills, report.metrics, domain).map((r) => ({ skillId: r.skill.id, name: r.skill.name, sameDomain: r.sameDomain }));
    const proposals = await proposer.propose({ domain, report, recipe: frontier.recipe, factors: FACTOR_PATTERNS, renders: gymRenders, lineage, skills, k: config.search.proposals });
    const planned = planRound({
      parentRecipe: frontier.recipe,
      locked,
      proposals,
      parentRollouts: frontier.train,
      parentLabels: frontierLabels.train,
      triedRecipeHashes: new Set(branches.filter((b) => b.parentId === frontier.id).map((b) => b.recipeHash)),
      keep: Math.min(config.search.keep, config.budget.branches - used.branches),
      successThreshold: config.gate.successThreshold,
    });
    ungated("backtest");
    const roundRecord: LoopRound = { round, frontierId: frontier.id, diagnosis: report, harnessCheck: check, retrieved, proposals, planned, children: [], bestAfter: best.id };
    rounds.push(roundRecord);
    const kept = planned.filter((p) => p.status === "backtested" && p.kept);
    if (kept.length === 0) {
      finishedBecause = "the proposer found no new intervention to try";
      break;
    }

    // 6. dispatch: every kept intervention trains from the frontier's policy.
    const children = kept.map((p, i) => {
      if (p.status !== "backtested") throw new Error("unreachable");
      return { plan: p, trained: train(branches.length + i, round, p.recipe, frontier) };
    });

    // 8. verdict; 9. decision; 10. skills — one child after the other, as each settles.
    for (const { plan, trained } of children) {
      const candidate = gateSide(trained, harness(), labels);
      const parent = side(frontier);
      const bestSide = best.id !== frontier.id ? side(best) : undefined;
      const result = judge({
        candidate,
        parent,
        ...(bestSide ? { best: bestSide } : {}),
        intervention: plan.intervention,
        policy: config.gate,
        seed: config.seed + trained.version,
        // This in-memory replay trains no control arm; the gate validity bench (tests/bench) does.
        vsControl: null,
      });
      ungated("completion");
      const decision = policyDecision(result);
      const status = decision.kind === "approve" ? "promoted" : "rejected";
      const child: LoopBranch = {
        ...trained,
        intervention: plan.intervention,
        backtest: plan.backtest,
        rank: plan.rank,
        score: candidate.score,
        harnessVersion: harness().definition.version,
        report: candidate.report,
        verdict: result,
        decision,
        status,
      };
      branches.push(child);
      roundRecord.children.push(child.id);
      if (status === "promoted" && best.score < child.score) best = child;

      const learned = learnFromBranch(
        skills,
        {
          runId,
          branchId: child.id,
          parentBranchId: frontier.id,
          domain,
          intervention: plan.intervention,
          report: parent.report,
          healthRules: harness().definition.healthRules,
          verdict: result,
        },
        status === "promoted",
      );
      skills = learned.skills;
      skillEvents.push({ round, branchId: child.id, success: status === "promoted", ...(learned.created ? { created: learned.created } : {}), updated: learned.updated });
    }
    roundRecord.bestAfter = best.id;
  }

  // The run's end: the best-so-far branch is evaluated once on the sealed split.
  const sealedEval = evaluateSplit(best.policy, "sealed", config.evaluation.sealed, config.evaluation.seed, config.search.stepsPerBranch);
  return {
    runId,
    config,
    branches,
    rounds,
    harnessVersions,
    skillEvents,
    skills,
    bestId: best.id,
    finishedBecause,
    sealed: { branchId: best.id, score: sealedEval.result.score },
  };
}
