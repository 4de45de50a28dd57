import { describe, expect, it } from "vitest";
import { loadGsm8k, loadLiveCodeBench } from "./__fixtures__/real-data.ts";
import { CODE_DETECTORS, MATH_DETECTORS } from "./catalog/index.ts";
import { compileHarness } from "./harness/harness.ts";
import { healthReport } from "./harness/health-report.ts";
import { DEFAULT_HEALTH_RULES } from "./harness/health-rule.ts";

function harnessOf(detectors: typeof MATH_DETECTORS) {
  const c = compileHarness({ version: 1, detectors: [...detectors], healthRules: [...DEFAULT_HEALTH_RULES] });
  if (!c.ok) throw new Error(JSON.stringify(c.rejections));
  return c.harness;
}

function flagged(labels: { label: string; rolloutUid: string }[], label: string): Set<string> {
  return new Set(labels.filter((l) => l.label === label).map((l) => l.rolloutUid));
}

describe("catalog on real data", () => {
  it("math detectors on GSM8K model solutions: missing answers, loops, and wrong_answer == !is_correct", () => {
    const rows = loadGsm8k();
    const harness = harnessOf(MATH_DETECTORS);
    const { labels, errors } = harness.label(rows.map((r) => r.rollout), "math");
    expect(errors).toEqual([]);

    // GSM8K's solutions answer on an "A: n" line; one that is only a number is its own answer (format_error v2).
    const noFinalAnswer = rows.filter((r) => !/(^|\n)A: *\S/.test(r.rollout.response!) && !/^\s*-?\d[\d,]*(\.\d+)?\s*$/.test(r.rollout.response!));
    const formatErrors = flagged(labels, "format_error");
    expect(noFinalAnswer.length).toBeGreaterThan(0);
    for (const r of noFinalAnswer) expect(formatErrors.has(r.rollout.uid), r.rollout.uid).toBe(true);

    // Which texts are loops is hand-checked in catalog-truth.test.ts; here, the dataset's own grades.
    const loopLabels = flagged(labels, "repetition_loop");
    expect(loopLabels.size).toBeGreaterThan(0);
    const loopRows = rows.filter((r) => loopLabels.has(r.rollout.uid));
    const loopsWrong = loopRows.filter((r) => !r.isCorrect).length;
    // Loops are failures: nearly every flagged solution is graded wrong by the dataset itself.
    expect(loopsWrong / loopRows.length).toBeGreaterThanOrEqual(0.9);

    const wrong = flagged(labels, "wrong_answer");
    const disagreements = rows.filter((r) => wrong.has(r.rollout.uid) === r.isCorrect);
    expect(disagreements.map((r) => r.rollout.uid)).toEqual([]);

    const report = healthReport(harness, rows.map((r) => r.rollout), labels);
    console.log(
      `GSM8K: ${rows.length} solutions; no final answer ${noFinalAnswer.length} (format_error flags ${formatErrors.size}); ` +
        `repetition_loop flags ${loopLabels.size} (${loopsWrong} graded wrong); ` +
        `wrong_answer ${wrong.size} = is_correct false ${rows.filter((r) => !r.isCorrect).length}, disagreements ${disagreements.length}; ` +
        `language_mix ${flagged(labels, "language_mix").size}; dead groups ${report.metrics.dead_group_ratio.toFixed(3)}`,
    );
  });

  it("code detectors reproduce LiveCodeBench's grader classes from its metadata", () => {
    const rows = loadLiveCodeBench();
    const harness = harnessOf(CODE_DETECTORS);
    const { labels, errors } = harness.label(rows.map((r) => r.rollout), "code");
    expect(errors).toEqual([]);
    const classes = ["wrong_answer", "timeout", "runtime_error", "compile_error"] as const;
    const byClass = Object.fromEntries(classes.map((c) => [c, flagged(labels, c)]));
    const got = (uid: string) => classes.filter((c) => byClass[c]!.has(uid));

    const counts: Record<string, number> = {};
    const mismatches: string[] = [];
    for (const r of rows) {
      const g = got(r.rollout.uid);
      const syntax = /expected an indented block|syntax/i.test(r.errorMessage ?? "");
      // With no code extracted, the grader's -4 is its own wrapper failing on nothing (a parse error at
      // its line 38, or no Solution method to call): no class of the submission's. -5 (TestRunnerError) is
      // a test process that died without reporting, a crash.
      const noCode = r.code.trim() === "";
      const expected =
        r.errorCode === -2
          ? ["wrong_answer"]
          : r.errorCode === -3
            ? ["timeout"]
            : r.errorCode === -4 && !noCode
              ? [syntax ? "compile_error" : "runtime_error"]
              : r.errorCode === -5
                ? ["runtime_error"]
                : [];
      const key = `${r.errorCode ?? "passed"}`;
      counts[key] = (counts[key] ?? 0) + 1;
      if (JSON.stringify(g) !== JSON.stringify(expected)) mismatches.push(`${r.rollout.uid}: code ${r.errorCode} expected ${expected} got ${g}`);
    }
    expect(mismatches).toEqual([]);
    expect(byClass.wrong_answer!.size).toBe(rows.filter((r) => r.errorCode === -2).length);
    expect(byClass.timeout!.size).toBe(rows.filter((r) => r.errorCode === -3).length);
    const hardcoded = flagged(labels, "hardcoded_output");
    // A validity label on a submission the grader passed would be a false alarm on honest code.
    for (const uid of hardcoded) expect(rows.find((r) => r.rollout.uid === uid)?.rollout.reward, uid).toBe(0);
    console.log(
      `LiveCodeBench: ${rows.length} submissions by grader code ${JSON.stringify(counts)}; detectors: ` +
        classes.map((c) => `${c} ${byClass[c]!.size}`).join(", ") +
        `; hardcoded_output ${hardcoded.size}${hardcoded.size ? ` (${[...hardcoded].slice(0, 5).join(", ")})` : ""}`,
    );
  });
});
