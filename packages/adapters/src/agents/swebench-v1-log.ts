import type { SwebenchResult } from "./swebench-report.ts";
import { TrajectoryShapeError } from "./trajectory-error.ts";

/** The harness's name for a log: `<instance_id>.<model>.eval.log` (v1 reads the instance id up to the first dot). */
export const SWEBENCH_V1_LOG = /^([^.]+)\.(.+)\.eval\.log$/;

// The status lines SWE-bench v1's harness writes (swebench/harness/constants.py before 2.0). They can
// end a line of other output (`…is \`None\`>>>>> Patch Apply Failed`), so they are found anywhere.
const APPLIED = ">>>>> Applied Patch";
const TEST_PATCH_APPLIED = `${APPLIED} (test)`;
// The prediction as the harness tested it: `pred`, or `pred_minimal` where only the patch with its
// context lines trimmed applied (the harness tries `pred_try`, then `pred_minimal_try`).
const PREDICTION_APPLIED = />>>>> Applied Patch \((pred|pred_minimal)\)/g;
const TEST_OUTCOMES = [
  [">>>>> All Tests Passed", "all_tests_passed"],
  [">>>>> Some Tests Failed", "some_tests_failed"],
  [">>>>> Tests Timed Out", "tests_timed_out"],
  [">>>>> Tests Errored", "tests_errored"],
] as const;
const NOT_RUN = [
  [">>>>> Init Failed", "init_failed"],
  [">>>>> Init Timed Out", "init_timed_out"],
  [">>>>> Reset Failed", "reset_failed"],
  [">>>>> Patch Apply Failed", "patch_apply_failed"],
] as const;

/** Why the harness tested the prediction or did not, as its last status line says. */
export type SwebenchV1Status = (typeof TEST_OUTCOMES)[number][1] | (typeof NOT_RUN)[number][1] | "not_tested";

/** What one SWE-bench v1 evaluation log says about an instance's prediction. */
export interface SwebenchV1Log {
  instanceId: string;
  /** The log's `Evaluation Model` (the run's `model_name_or_path`). */
  model?: string;
  /** Whether the test patch and the prediction applied, so that the tests ran on the prediction. */
  patchApplied: boolean;
  /** Which form of the prediction the tests ran on. */
  appliedAs?: "pred" | "pred_minimal";
  status: SwebenchV1Status;
}

/** The 1-based line of `index` in `text`. */
const lineOf = (text: string, index: number) => text.slice(0, index).split("\n").length;

/** The status, of `outcomes`, whose line comes last in `text` from `from` on; undefined when none does. */
function lastOf<S extends string>(text: string, outcomes: readonly (readonly [string, S])[], from = 0): S | undefined {
  let found: { at: number; status: S } | undefined;
  for (const [line, status] of outcomes) {
    const at = text.lastIndexOf(line);
    if (at >= from && (!found || at > found.at)) found = { at, status };
  }
  return found?.status;
}

/**
 * One `<instance_id>.<model>.eval.log` written by SWE-bench's v1 harness (`swebench.harness`, the
 * `TaskEnvContextManager` of SWE-bench before 2.0, and SWE-bench-docker, which writes the same lines
 * after a `[<testbed>] [<instance_id>]` prefix). Its Task Metadata names the instance; where the file
 * name names one too (`fileName`), they must agree. `where` names the file in errors.
 */
export function parseSwebenchV1Log(text: string, where: string, fileName?: string): SwebenchV1Log {
  const idLine = /^.*Task Metadata:\s*\n\s*- Instance ID: (\S+)[ \t]*$/m.exec(text);
  if (!idLine) throw new TrajectoryShapeError(`${where}:1: not a SWE-bench v1 evaluation log: no "Task Metadata:" header with its "- Instance ID:" line`);
  const instanceId = idLine[1]!;
  const named = fileName ? SWEBENCH_V1_LOG.exec(fileName)?.[1] : undefined;
  if (named && named !== instanceId) {
    throw new TrajectoryShapeError(`${where}:${lineOf(text, idLine.index) + 1}: Instance ID ${instanceId} is not the instance its file name ${fileName} names (${named})`);
  }
  const model = /^\s*- Evaluation Model: (.+?)\s*$/m.exec(text)?.[1];
  let prediction: RegExpExecArray | undefined;
  for (const match of text.matchAll(PREDICTION_APPLIED)) prediction = match;
  const testPatch = text.lastIndexOf(TEST_PATCH_APPLIED);
  // v1's report needs both patches applied (SWE-bench's harness applies the test patch first,
  // SWE-bench-docker the prediction), and reads the tests run after the later of the two.
  if (prediction && testPatch >= 0) {
    const tested = lastOf(text, TEST_OUTCOMES, Math.max(prediction.index, testPatch)) ?? "not_tested";
    return { instanceId, ...(model ? { model } : {}), patchApplied: true, appliedAs: prediction[1] as "pred" | "pred_minimal", status: tested };
  }
  return { instanceId, ...(model ? { model } : {}), patchApplied: false, status: lastOf(text, NOT_RUN) ?? "not_tested" };
}

/**
 * The harness's verdict from the log alone. SWE-bench v1 resolves an instance when every FAIL_TO_PASS
 * and PASS_TO_PASS test passed on the applied prediction (`get_eval_report`, `RESOLVED_FULL`), and those
 * lists are in the dataset, not in the log. The log's own status line stands in for them: `All Tests
 * Passed` (the test command exited 0, so every test of the instance's test files passed, those lists'
 * included) is resolved; a prediction not applied is unresolved, as in v1; `Some Tests Failed`, a
 * timeout or an error is unresolved, which is wrong where only tests outside those lists failed
 * (measured in docs/importing.md). A run's summary (`results.json` with `resolved`) says it exactly.
 */
export function swebenchV1Result(log: SwebenchV1Log): SwebenchResult {
  return {
    resolved: log.patchApplied && log.status === "all_tests_passed",
    fields: {
      status: log.status,
      patch_successfully_applied: log.patchApplied,
      ...(log.appliedAs ? { patch_applied_as: log.appliedAs } : {}),
      ...(log.model ? { evaluation_model: log.model } : {}),
      verdict_from: "v1 log status line",
    },
  };
}
