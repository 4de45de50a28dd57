import { z } from "zod";
import { contentHash } from "./content-hash.ts";

export const jsonValueSchema: z.ZodType<unknown> = z.lazy(() =>
  z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(jsonValueSchema), z.record(z.string(), jsonValueSchema)]),
);

/** Names of verl's advantage estimators (`algorithm.adv_estimator`), plus Dr. GRPO (GRPO without std scaling). */
export const estimatorSchema = z.enum(["grpo", "dr_grpo", "rloo", "reinforce_plus_plus", "remax", "gae"]);
export type Estimator = z.infer<typeof estimatorSchema>;

/** verl's `loss_agg_mode` values. */
export const lossAggregationSchema = z.enum([
  "token-mean",
  "seq-mean-token-sum",
  "seq-mean-token-mean",
  "seq-mean-token-sum-norm",
]);

export const algoSchema = z.strictObject({
  estimator: estimatorSchema,
  lr: z.number().positive().max(1),
  // "reward": KL folded into the reward (PPO style); "loss": KL term in the actor loss (GRPO style).
  kl: z.strictObject({ mode: z.enum(["none", "reward", "loss"]), coef: z.number().nonnegative() }),
  // Asymmetric clipping (DAPO's clip-higher) needs both bounds.
  clip: z.strictObject({ low: z.number().positive().max(1), high: z.number().positive().max(10) }),
  entropyCoef: z.number().nonnegative(),
  groupSize: z.number().int().min(1).max(1024),
  temperature: z.number().positive().max(2),
  maxResponseTokens: z.number().int().positive(),
  maxTurns: z.number().int().positive(),
  lossAggregation: lossAggregationSchema,
});

export const componentNameSchema = z.string().regex(/^[a-z][a-z0-9_]*$/, {
  error: "component names are lower_snake_case",
});

export const rewardSchema = z.strictObject({
  components: z
    .record(componentNameSchema, z.strictObject({ weight: z.number(), description: z.string().optional() }))
    .refine((c) => Object.keys(c).length > 0, { error: "a reward needs at least one component" }),
  // DAPO soft overlong punishment: a linear penalty over the last `bufferTokens` before the length limit.
  overlong: z.strictObject({
    enabled: z.boolean(),
    bufferTokens: z.number().int().nonnegative(),
    penalty: z.number().nonnegative(),
  }),
});

export const dataSchema = z.strictObject({
  // Zero-variance group filter (DAPO dynamic sampling): groups whose rewards are all equal carry no
  // GRPO signal, so they are dropped and replaced by fresh groups.
  dynamicSampling: z.strictObject({ enabled: z.boolean(), maxResampleRounds: z.number().int().min(1) }),
  // Truncated samples are masked out of the loss (DAPO overlong filtering).
  overlongFilter: z.boolean(),
  curriculum: z
    .strictObject({
      enabled: z.boolean(),
      minPassRate: z.number().min(0).max(1),
      maxPassRate: z.number().min(0).max(1),
    })
    .refine((c) => c.minPassRate <= c.maxPassRate, { error: "minPassRate must not exceed maxPassRate", path: ["minPassRate"] }),
});

export const envSchema = z.strictObject({
  clearGitHistory: z.boolean(),
  networkOff: z.boolean(),
  readOnlyTests: z.boolean(),
  hideTestFiles: z.boolean(),
});

export const recipeSchema = z.strictObject({
  algo: algoSchema,
  reward: rewardSchema,
  data: dataSchema,
  env: envSchema,
  // Trainer-specific keys, verbatim (e.g. verl's Hydra paths "actor_rollout_ref.actor.ppo_epochs").
  passthrough: z.strictObject({
    verl: z.record(z.string(), jsonValueSchema).optional(),
    trl: z.record(z.string(), jsonValueSchema).optional(),
  }),
});
export type Recipe = z.infer<typeof recipeSchema>;

/** The recipe's identity: sha256 of its canonical JSON. */
export function recipeHash(recipe: Recipe): string {
  return contentHash(recipe);
}

/** A DAPO-flavoured GRPO starting point a run can begin from before any intervention. */
export function defaultRecipe(): Recipe {
  return {
    algo: {
      estimator: "grpo",
      lr: 1e-6,
      kl: { mode: "loss", coef: 0.001 },
      clip: { low: 0.2, high: 0.28 },
      entropyCoef: 0,
      groupSize: 8,
      temperature: 1,
      maxResponseTokens: 4096,
      maxTurns: 1,
      lossAggregation: "token-mean",
    },
    reward: {
      components: { correctness: { weight: 1 }, format: { weight: 0 } },
      overlong: { enabled: false, bufferTokens: 512, penalty: 1 },
    },
    data: {
      dynamicSampling: { enabled: false, maxResampleRounds: 3 },
      overlongFilter: false,
      curriculum: { enabled: false, minPassRate: 0, maxPassRate: 1 },
    },
    env: { clearGitHistory: false, networkOff: false, readOnlyTests: false, hideTestFiles: false },
    passthrough: {},
  };
}
