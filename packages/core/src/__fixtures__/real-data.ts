// Test-only loader: maps the real data in tests/fixtures/real/ (public data, copied in with its licenses) to contract rollouts. Reads files,
// so it must never be imported by non-test source.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { rolloutSchema, type Rollout } from "@evotrainer/contract";

export const REAL_DIR = process.env.EVO_REAL_FIXTURES ?? fileURLToPath(new URL("../../../../tests/fixtures/real/", import.meta.url));


// Neither file records token counts; ~4 characters per token is the usual estimate for English text.
const approxTokens = (s: string) => Math.ceil(s.length / 4);

export const GSM8K_MODELS = ["6b_finetuning", "6b_verification", "175b_finetuning", "175b_verification"] as const;

export interface Gsm8kRollout {
  rollout: Rollout;
  isCorrect: boolean;
}

/**
 * One rollout per (question, model solution); the four solutions of a question form one group. The
 * file's `is_correct` is kept aside (and reward left at 0) so detectors cannot read the answer key.
 */
export function loadGsm8k(): Gsm8kRollout[] {
  const lines = readFileSync(`${REAL_DIR}/gsm8k-example-model-solutions.jsonl`, "utf8").split("\n").filter((l) => l.trim() !== "");
  return lines.flatMap((line, i) => {
    const row = JSON.parse(line) as Record<string, unknown> & { question: string; ground_truth: string };
    return GSM8K_MODELS.map((model, sample) => {
      const sol = row[model] as { is_correct: boolean; solution: string };
      return {
        isCorrect: sol.is_correct,
        rollout: rolloutSchema.parse({
          uid: `gsm8k-${i}-${model}`,
          split: "train",
          step: 0,
          taskId: `gsm8k-${i}`,
          groupId: `gsm8k-${i}`,
          sample,
          prompt: row.question,
          response: sol.solution,
          reward: 0,
          responseTokens: approxTokens(sol.solution),
          groundTruth: row.ground_truth,
          extra: { model },
        }),
      };
    });
  });
}

export interface LiveCodeBenchRollout {
  rollout: Rollout;
  errorCode: number | undefined;
  errorMessage: string | undefined;
  /** The code LiveCodeBench itself extracted from the output and graded ('' when it found none). */
  code: string;
}

/** One rollout per problem: o1-mini's raw output, graded pass/fail, the grader's class as test status. */
export function loadLiveCodeBench(): LiveCodeBenchRollout[] {
  const rows = JSON.parse(readFileSync(`${REAL_DIR}/livecodebench-o1-mini-codegen.json`, "utf8")) as {
    question_id: string;
    question_content: string;
    platform: string;
    difficulty: string;
    output_list: string[];
    code_list: string[];
    graded_list: boolean[];
    metadata: string[];
  }[];
  return rows.map((row) => {
    const meta = JSON.parse(row.metadata[0] ?? "{}") as { error_code?: number; error_message?: string; error?: string };
    const passed = row.graded_list[0] === true;
    const output = row.output_list[0] ?? "";
    return {
      errorCode: meta.error_code,
      errorMessage: meta.error_message,
      code: row.code_list[0] ?? "",
      rollout: rolloutSchema.parse({
        uid: `lcb-${row.question_id}`,
        split: "train",
        step: 0,
        taskId: row.question_id,
        groupId: row.question_id,
        sample: 0,
        prompt: row.question_content,
        response: output,
        reward: passed ? 1 : 0,
        responseTokens: approxTokens(output),
        testResults: {
          passed: passed ? 1 : 0,
          total: 1,
          ...(meta.error_message !== undefined ? { status: meta.error_message } : {}),
          ...(meta.error !== undefined ? { message: meta.error } : {}),
        },
        extra: { platform: row.platform, difficulty: row.difficulty },
      }),
    };
  });
}
