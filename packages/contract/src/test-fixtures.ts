// Valid values of each contract type, for tests to start from and break one field at a time.
import type { z } from "zod";
import type { JobInput } from "./job.ts";
import type { rolloutSchema } from "./rollout.ts";

const evalSettings = { samplesPerTask: 4, temperature: 0.6, maxResponseTokens: 4096, grader: "hidden_tests" };

export function validJob(outputDir = "/tmp/evo/job-1"): JobInput {
  return {
    contract: "evo.job/v1",
    runId: "run-1",
    branchId: "branch-2",
    jobId: "job-3",
    kind: "train",
    domain: "swe",
    policy: { base: "gym:swe", checkpoint: "/ckpt/branch-1/step_20" },
    recipe: { algo: { estimator: "grpo", lr: 1e-6, groupSize: 8 }, reward: { components: { tests: 1 } } },
    evaluation: {
      promotion: { dataset: "gym:swe/promotion", taskCount: 64, ...evalSettings },
      sealed: { dataset: "gym:swe/sealed", ...evalSettings },
      seed: 7,
    },
    budget: { maxSeconds: 3600, maxSteps: 40, gpuCount: 0 },
    seed: 42,
    outputDir,
    adapter: { stepsPerSecond: 100 },
  };
}

export function validRollout(overrides: Partial<z.input<typeof rolloutSchema>> = {}): z.input<typeof rolloutSchema> {
  return {
    uid: "branch-2/train/3/task-9/0",
    split: "train",
    step: 3,
    taskId: "task-9",
    groupId: "3/task-9",
    sample: 0,
    prompt: "Fix the failing test in src/parser.py",
    response: "diff --git a/src/parser.py b/src/parser.py\n+    return None  # ✓ naïve fix 🎉",
    reward: 1,
    rewardComponents: { tests: 1 },
    responseTokens: 321,
    finishReason: "stop",
    testResults: { passed: 3, total: 3 },
    ...overrides,
  };
}
