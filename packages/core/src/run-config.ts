import { z } from "zod";
import { domainSchema, evaluationProtocolSchema } from "@evotrainer/contract";
import { autonomyPolicySchema } from "./autonomy.ts";
import { gatePolicySchema } from "./harness/harness.ts";
import { llmSettingsSchema } from "./llm-settings.ts";
import type { LockedEvaluation } from "./locked-evaluation.ts";
import { recipeSchema } from "./recipe.ts";
import { adapterNameSchema, TRAINER_SETTINGS_SCHEMAS } from "./trainer-settings.ts";

/** What a person writes to start a run (examples/*.yaml); validated once, then frozen on the Run row. */
export const runConfigSchema = z.strictObject({
  name: z.string().min(1).max(120),
  domain: domainSchema,
  // The base policy: a model id, a path, or a gym policy name.
  basePolicy: z.string().min(1),
  recipe: recipeSchema,
  evaluation: evaluationProtocolSchema,
  // Extra recipe locations this run treats as evaluation settings, beyond the built-in ones.
  lockedPaths: z.array(z.string().startsWith("/")).default([]),
  autonomy: autonomyPolicySchema,
  gate: gatePolicySchema.default(gatePolicySchema.parse({})),
  search: z
    .strictObject({
      // K proposals per round, B kept after backtesting.
      proposals: z.number().int().min(1).max(32).default(4),
      keep: z.number().int().min(1).max(8).default(2),
      stepsPerBranch: z.number().int().min(1).default(30),
      proposer: z.enum(["rule", "llm"]).default("rule"),
      // sibling: each round also trains the parent's recipe unchanged (the control), and candidates
      // are judged against it; none: judged against the parent, which mixes in extra training.
      control: z.enum(["sibling", "none"]).default("sibling"),
      // With control: none and full autonomy, the gate's error bound does not hold (UNCONTROLLED_RATE):
      // such a run is refused unless this says the cost is accepted.
      acceptUnboundedFalsePromotions: z.boolean().default(false),
      // Control children per round: two or more measure the seed noise the gate must beat.
      controlReplicates: z.number().int().min(1).max(8).default(2),
      // Control children in a round whose parent no earlier round measured (the run's first round,
      // and the first after a promotion): seed noise is measured per parent, and gate.minNoiseDf
      // (2) needs three replicates there.
      newParentControlReplicates: z.number().int().min(2).max(8).default(3),
    })
    .default({ proposals: 4, keep: 2, stepsPerBranch: 30, proposer: "rule", control: "sibling", acceptUnboundedFalsePromotions: false, controlReplicates: 2, newParentControlReplicates: 3 }),
  // The LLM proposer's provider, model, prices and dollar budget, when search.proposer is "llm".
  llm: llmSettingsSchema.optional(),
  budget: z.strictObject({
    // GPU-seconds (CPU-seconds for the gym) over all jobs of the run.
    gpuSeconds: z.number().positive(),
    branches: z.number().int().min(1),
    rounds: z.number().int().min(1),
  }),
  // Where jobs run (this machine, GPU nodes over SSH, a Kubernetes pool, a Slurm cluster) and which trainer runs them.
  executor: z.enum(["local", "ssh", "kubernetes", "slurm"]).default("local"),
  adapter: adapterNameSchema.default("gym"),
  // The adapter's own settings (dataset, reward functions, trainer arguments), checked against its
  // schema below and handed to every job as \`job.adapter\`.
  trainer: z.record(z.string(), z.unknown()).default({}),
  resources: z
    .strictObject({
      gpusPerJob: z.number().int().min(0).default(1),
      // SSH: only nodes carrying every one of these labels take the run's jobs.
      nodeLabels: z.record(z.string(), z.string()).default({}),
      // Kubernetes: the node pool (from the compute config) the run's Jobs go to.
      pool: z.string().min(1).optional(),
      // Slurm: the cluster (from the compute config) whose scheduler takes the run's jobs.
      cluster: z.string().min(1).optional(),
    })
    .default({ gpusPerJob: 1, nodeLabels: {} }),
  seed: z.number().int().nonnegative().default(0),
}).superRefine((config, ctx) => {
  if (config.search.control === "none" && config.autonomy.mode === "full" && !config.search.acceptUnboundedFalsePromotions) {
    ctx.addIssue({
      code: "custom",
      path: ["search", "control"],
      message: `none, with autonomy.mode: full, promotes without a control arm: ${UNCONTROLLED_RATE}. Use control: sibling, or autonomy.mode: human_gated, or set search.acceptUnboundedFalsePromotions: true to accept that cost`,
    });
  }
  const settings = TRAINER_SETTINGS_SCHEMAS[config.adapter].safeParse(config.trainer);
  if (settings.success) return;
  for (const issue of settings.error.issues) {
    ctx.addIssue({ code: "custom", path: ["trainer", ...issue.path], message: `${issue.message} (${config.adapter} settings)` });
  }
});
export type RunConfig = z.infer<typeof runConfigSchema>;

/** What a run without a control costs, as measured (docs/promotion-gate.md, "Without a control arm"). */
export const UNCONTROLLED_RATE = "a null intervention was promoted in 36 of 40 runs (90%) of examples/gym-code.yaml with search.control: none";

/** The warning a run without a control gets before it starts, or null for a controlled one. */
export function uncontrolledRunWarning(config: RunConfig): string | null {
  if (config.search.control !== "none") return null;
  const who = config.autonomy.mode === "full" ? "promotes by the gate alone" : "asks a person, whose evidence has no control either";
  return `search.control: none: candidates are judged against their parent, with no control arm, and the run ${who}; ${UNCONTROLLED_RATE}. \`evotrainer calibrate\` measures the rate for this config`;
}
export type RunConfigInput = z.input<typeof runConfigSchema>;

/** The run's evaluation as interventions must leave it: both splits and the extra locked paths. */
export function lockedEvaluationOf(config: Pick<RunConfig, "evaluation" | "lockedPaths">): LockedEvaluation {
  const split = ({ taskCount: _taskCount, ...spec }: RunConfig["evaluation"]["promotion"]) => spec;
  return { promotion: split(config.evaluation.promotion), sealed: split(config.evaluation.sealed), lockedPaths: config.lockedPaths };
}

/** The config a run was created with, as frozen in its settings. */
export function runConfigOf(run: { settings: unknown }): RunConfig {
  return runConfigSchema.parse(run.settings);
}
