import type { EvalSplit, EvalSplitSpec, SplitEval, TaskEval } from "@evotrainer/contract";
import { basePolicy, domainModel } from "./domains.ts";
import type { EpisodeEnv } from "./episodes/episode.ts";
import type { Policy } from "./policy.ts";
import { rolloutRow, type RolloutRow } from "./rollout-rows.ts";
import { sampleRollout, type SamplingContext } from "./sampling.ts";
import { poolTasks } from "./tasks/pool.ts";
import type { GymDomain } from "./tasks/task.ts";

/** How many tasks a generated gym dataset holds when the protocol takes all of them. */
export const GYM_DATASET_SIZE = 200;

// Agent episodes in evaluation get a fixed turn limit: the locked protocol must not follow a branch's recipe.
const EVAL_MAX_TURNS = 30;

/**
 * The locked grader's sandbox: git history cleared and tests read-only whatever the recipe says,
 * and scored on the hidden tests / verified answer alone, so tampering and leaks earn nothing.
 */
export function lockedEnv(spec: EvalSplitSpec): EpisodeEnv {
  return { maxResponseTokens: spec.maxResponseTokens, maxTurns: EVAL_MAX_TURNS, clearGitHistory: true, readOnlyTests: true, hideTestFiles: false };
}

/** `gym:<domain>/<pool>` → pool name, or an explanation of what is wrong with it. */
export function parseGymDataset(dataset: string, domain: GymDomain): { pool: string } | { error: string } {
  const m = /^gym:([a-z]+)\/([A-Za-z0-9_.-]+)$/.exec(dataset);
  if (!m) return { error: `"${dataset}" is not a gym dataset; use gym:${domain}/<name>, e.g. gym:${domain}/promotion` };
  if (m[1] !== domain) return { error: `"${dataset}" is a ${m[1]} dataset but the job's domain is ${domain}` };
  if (m[2] === "train") return { error: `"${dataset}" is the training pool; evaluation needs a pool of its own` };
  return { pool: m[2]! };
}

export interface SplitEvaluation {
  result: SplitEval;
  rows: RolloutRow[];
}

/**
 * Evaluates `policy` on one locked split. Sampling draws depend only on the protocol's seed, the
 * task and the sample index, so every branch meets the same draws and paired comparisons between
 * branches are as sharp as they can be.
 */
export function evaluateSplit(policy: Policy, split: EvalSplit, spec: EvalSplitSpec, evalSeed: number, step: number): SplitEvaluation {
  const parsed = parseGymDataset(spec.dataset, policy.domain);
  if ("error" in parsed) throw new Error(parsed.error);
  const model = domainModel(policy.domain);
  const ctx: SamplingContext = {
    model,
    policy,
    reference: basePolicy(policy.domain),
    env: lockedEnv(spec),
    // Greedy decoding at temperature 0 is approximated by a very low temperature.
    temperature: Math.max(spec.temperature, 0.05),
    score: (episode) => episode.components["correctness"] ?? 0,
  };
  const tasks = poolTasks(policy.domain, parsed.pool, spec.taskCount ?? GYM_DATASET_SIZE);
  const rows: RolloutRow[] = [];
  const perTask: TaskEval[] = tasks.map((task) => {
    const groupId = `${split}-${step}-${task.id}`;
    let total = 0;
    let passed = 0;
    for (let i = 0; i < spec.samplesPerTask; i++) {
      const sample = sampleRollout(ctx, task, i, ["eval", evalSeed, parsed.pool, task.id, i]);
      total += sample.score;
      if (sample.score >= 1) passed++;
      rows.push(rolloutRow(split, step, groupId, sample));
    }
    return { taskId: task.id, samples: spec.samplesPerTask, meanReward: total / spec.samplesPerTask, passRate: passed / spec.samplesPerTask };
  });
  const score = perTask.reduce((s, t) => s + t.meanReward, 0) / Math.max(1, perTask.length);
  return { result: { score, tasks: perTask }, rows };
}
