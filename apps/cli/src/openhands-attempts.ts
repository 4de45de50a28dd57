import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { openHandsAttempt, type SwebenchResult } from "@evotrainer/adapters";
import { readSwebenchReport, readTrajectoryFile, trajectoryUid } from "./trajectory-source.ts";

/**
 * One output directory of OpenHands' iterative evaluation (run_infer.py with ITERATIVE_EVAL_MODE):
 * attempt n's rows in output.critic_attempt_<n>.jsonl, and output.jsonl written at the end from them,
 * for each instance the line of its last attempt with a non-empty patch, copied as it was.
 */
export interface OpenHandsAttempts {
  /** The attempt files, by attempt. */
  files: string[];
  /** The attempt that holds a trajectory (its uid without an attempt): the last of them when several hold the same messages, as output.jsonl copies the last. */
  attemptOf(uid: string): number | undefined;
  /**
   * The results that belong to attempt n's rows, and the file they came from: that attempt's own
   * evaluation (output.critic_attempt_<n>.swebench_eval.jsonl) where there is one; otherwise the
   * run's results, which evaluated output.jsonl, for the instances whose output.jsonl line is attempt n's.
   */
  resultsOf(attempt: number, run: ReadonlyMap<string, SwebenchResult> | undefined): { results?: ReadonlyMap<string, SwebenchResult>; file?: string };
}

/** The attempts in `dir`, or undefined when it holds no attempt files. Reads the attempt files and output.jsonl (each line parsed once here). */
export function openHandsAttemptsIn(dir: string): OpenHandsAttempts | undefined {
  const names = readdirSync(dir, { withFileTypes: true }).filter((e) => e.isFile() && openHandsAttempt(e.name) !== undefined).map((e) => e.name);
  if (names.length === 0) return undefined;
  const files = names.sort((a, b) => openHandsAttempt(a)! - openHandsAttempt(b)!).map((name) => join(dir, name));
  const attempts = new Map<string, number>();
  for (const file of files) {
    const attempt = openHandsAttempt(file.slice(dir.length + 1))!;
    for (const { rollout } of readTrajectoryFile("openhands", file).rows) {
      const uid = trajectoryUid(rollout);
      attempts.set(uid, Math.max(attempt, attempts.get(uid) ?? 0));
    }
  }
  const attemptOf = (uid: string) => attempts.get(uid);
  const kept = new Map<string, number>();
  const output = ["output.jsonl", "output.jsonl.gz"].map((name) => join(dir, name)).find((file) => existsSync(file));
  if (output) {
    for (const { rollout } of readTrajectoryFile("openhands", output).rows) {
      const attempt = attemptOf(trajectoryUid(rollout));
      if (attempt !== undefined) kept.set(rollout.taskId, attempt);
    }
  }
  return {
    files,
    attemptOf,
    resultsOf(attempt, run) {
      const own = join(dir, `output.critic_attempt_${attempt}.swebench_eval.jsonl`);
      if (existsSync(own)) return { results: readSwebenchReport(own), file: own };
      if (!run) return {};
      return { results: new Map([...run].filter(([id]) => kept.get(id) === attempt)) };
    },
  };
}
