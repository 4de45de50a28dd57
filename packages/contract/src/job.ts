import { z } from "zod";
import { readJsonFile, writeJsonFile } from "./json-file.ts";
import { ContractFileError } from "./contract-error.ts";

export const JOB_CONTRACT_VERSION = "evo.job/v1";

export const jobKindSchema = z.enum(["train", "eval"]);
export type JobKind = z.infer<typeof jobKindSchema>;

export const domainSchema = z.enum(["math", "code", "swe", "custom"]);
export type Domain = z.infer<typeof domainSchema>;

/** The two halves of the locked evaluation. */
export const evalSplitSchema = z.enum(["promotion", "sealed"]);
export type EvalSplit = z.infer<typeof evalSplitSchema>;

/**
 * How one locked split is evaluated. Per split, as core's locked evaluation holds it, so the
 * control plane copies the run's protocol into the job without reshaping it.
 */
export const evalSplitSpecSchema = z.strictObject({
  // Resolved by the adapter: a path, a URI, or a generator name such as the gym's.
  dataset: z.string().min(1),
  // How many tasks of the dataset to use, taken in the dataset's own order; all of them when absent.
  taskCount: z.number().int().positive().optional(),
  samplesPerTask: z.number().int().positive(),
  temperature: z.number().min(0).max(2),
  maxResponseTokens: z.number().int().positive(),
  grader: z.string().min(1),
});
export type EvalSplitSpec = z.infer<typeof evalSplitSpecSchema>;

/** Frozen for the whole run, so every branch is scored the same way and promotions stay comparable. */
export const evaluationProtocolSchema = z.strictObject({
  promotion: evalSplitSpecSchema,
  sealed: evalSplitSpecSchema,
  // Sampling seed of evaluation, apart from the job's seed so that every branch sees the same draws.
  seed: z.number().int().nonnegative(),
});
export type EvaluationProtocol = z.infer<typeof evaluationProtocolSchema>;

export const budgetSchema = z.strictObject({
  maxSeconds: z.number().positive(),
  // Required for train jobs (checked on the job); an eval job has no training steps.
  maxSteps: z.number().int().positive().optional(),
  // 0 for CPU trainers such as the gym.
  gpuCount: z.number().int().nonnegative(),
});
export type Budget = z.infer<typeof budgetSchema>;

export const policySchema = z.strictObject({
  // The run's base model (a Hugging Face id, a path, or a gym policy name).
  base: z.string().min(1),
  // Weights to start from: the parent branch's for a train job, the branch's own for an eval job.
  checkpoint: z.string().min(1).optional(),
});
export type Policy = z.infer<typeof policySchema>;

/** `job.json`: everything a trainer adapter needs to run one job, written by the control plane. */
export const jobSchema = z
  .strictObject({
    contract: z.literal(JOB_CONTRACT_VERSION),
    runId: z.string().min(1),
    branchId: z.string().min(1),
    jobId: z.string().min(1),
    kind: jobKindSchema,
    domain: domainSchema,
    policy: policySchema,
    // Core owns the recipe's schema; the contract only carries it.
    recipe: z.record(z.string(), z.unknown()),
    evaluation: evaluationProtocolSchema,
    // Which locked splits this job evaluates. Sealed only for the final report or when a person asks.
    evalSplits: z.array(evalSplitSchema).min(1).default(["promotion"]),
    budget: budgetSchema,
    seed: z.number().int().nonnegative(),
    // 1 for the first launch, +1 per retry. Trainers stamp it on their rollout and metrics lines, so
    // the control plane keeps a step's rows from the attempt that wrote it last (see docs/jobs).
    attempt: z.number().int().positive().default(1),
    outputDir: z.string().min(1),
    // Adapter-specific settings (verl overrides, gym speed knobs): not part of the recipe's factors.
    adapter: z.record(z.string(), z.unknown()).default({}),
  })
  .superRefine((job, ctx) => {
    if (job.kind === "train" && job.budget.maxSteps === undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["budget", "maxSteps"],
        message: "missing: a train job needs budget.maxSteps (a positive integer)",
      });
    }
    if (new Set(job.evalSplits).size !== job.evalSplits.length) {
      ctx.addIssue({ code: "custom", path: ["evalSplits"], message: "list each split once" });
    }
  });
export type Job = z.output<typeof jobSchema>;
export type JobInput = z.input<typeof jobSchema>;

const what = `${JOB_CONTRACT_VERSION} job`;

/** Validates and writes `job.json` atomically; returns the job with defaults filled in. */
export function writeJob(file: string, job: JobInput): Promise<Job> {
  return writeJsonFile(file, jobSchema, job, what);
}

/** Reads and validates `job.json`; a missing file is an error here, since a job cannot run without it. */
export async function readJob(file: string): Promise<Job> {
  const job = await readJsonFile(file, jobSchema, what);
  if (job === null) {
    throw new ContractFileError(file, `not found; expected the ${what} file written by the control plane`);
  }
  return job;
}
