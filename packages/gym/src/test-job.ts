// A valid gym job.json for the trainer's tests, to change one field at a time.
import type { JobInput } from "@evotrainer/contract";
import { gymRecipe } from "./test-support.ts";

export function gymJob(outputDir: string, overrides: Partial<JobInput> = {}): JobInput {
  const evalSettings = { samplesPerTask: 2, temperature: 0.6, maxResponseTokens: 1024, grader: "hidden_tests" };
  return {
    contract: "evo.job/v1",
    runId: "run-1",
    branchId: "branch-1",
    jobId: "job-1",
    kind: "train",
    domain: "swe",
    policy: { base: "gym:swe" },
    recipe: gymRecipe((r) => {
      r.reward.components = { tests_pass: { weight: 1 } };
    }),
    evaluation: {
      promotion: { dataset: "gym:swe/promotion", taskCount: 16, ...evalSettings },
      sealed: { dataset: "gym:swe/sealed", taskCount: 8, ...evalSettings },
      seed: 7,
    },
    evalSplits: ["promotion", "sealed"],
    budget: { maxSeconds: 600, maxSteps: 6, gpuCount: 0 },
    seed: 42,
    outputDir,
    adapter: { tasksPerStep: 8 },
    ...overrides,
  };
}
