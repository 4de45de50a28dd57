import type { TestResults } from "@evotrainer/contract";
import { renderCodeResponse, type CodeVariant } from "../render/code-response.ts";
import type { CodeTask, CodeTest } from "../tasks/code.ts";
import { limitResponse, type DomainModel } from "./episode.ts";

type Verdict = "pass" | "wrong" | "timeout" | "crash";

/** Runs a program variant on one test: the variants' bugs, evaluated on the test's real values. */
function run(task: CodeTask, variant: CodeVariant, test: CodeTest): { verdict: Verdict; got?: string } {
  const solve = task.family.solve;
  const check = (got: string) => ({ verdict: got === test.expected ? ("pass" as const) : ("wrong" as const), got });
  switch (variant) {
    case "correct":
      return { verdict: "pass" };
    case "infinite_loop":
      return { verdict: "timeout" };
    case "index_error":
      return { verdict: "crash" };
    case "off_by_one":
      return test.large ? { verdict: "wrong" } : check(String(test.values.length > 1 ? solve(test.values.slice(0, -1)) : solve([])));
    case "misread":
      return test.large ? { verdict: "wrong" } : check(String(solve([test.values.length, ...test.values])));
    case "hardcoded": {
      const known = task.examples.find((e) => e.input === test.input);
      return test.large ? { verdict: "wrong" } : check(known ? known.expected : "0");
    }
  }
}

/** The grader's report over a set of tests, with the class and message a judge prints. */
function grade(task: CodeTask, variant: CodeVariant | "unfinished", tests: readonly CodeTest[]): TestResults {
  if (variant === "unfinished") {
    return { passed: 0, total: tests.length, status: "Compilation Error", message: "SyntaxError: unexpected EOF while parsing" };
  }
  const results = tests.map((t) => ({ test: t, ...run(task, variant, t) }));
  const passed = results.filter((r) => r.verdict === "pass").length;
  const firstFail = results.findIndex((r) => r.verdict !== "pass");
  if (firstFail < 0) return { passed, total: tests.length, status: "Accepted" };
  const fail = results[firstFail]!;
  switch (fail.verdict) {
    case "timeout":
      return { passed, total: tests.length, status: "Time Limit Exceeded", message: `TimeoutException: test ${firstFail + 1} ran past 2.0s` };
    case "crash":
      return { passed, total: tests.length, status: "Runtime Error", message: "IndexError: list index out of range" };
    default:
      return {
        passed,
        total: tests.length,
        status: "Wrong Answer",
        message: fail.got === undefined ? `wrong output on test ${firstFail + 1}` : `test ${firstFail + 1}: expected ${fail.test.expected}, got ${fail.got}`,
      };
  }
}

const VARIANT: Record<string, CodeVariant> = {
  wrong_answer: "misread",
  timeout_loop: "infinite_loop",
  runtime_error: "index_error",
  hardcode_output: "hardcoded",
};

/**
 * Code: `tests_pass` runs the visible examples (what a naive reward checks, and what hardcoding
 * fools); `correctness` is the hidden tests, the grader's verdict.
 */
export const codeModel: DomainModel<CodeTask> = {
  behaviours: ["correct_solution", "wrong_answer", "timeout_loop", "runtime_error", "hardcode_output"],
  baseProbs: [0.4, 0.2, 0.12, 0.13, 0.15],
  baseSkill: 0.3,
  components: ["correctness", "tests_pass", "format"],
  outcomeBias: (_task, behaviour) => (behaviour === "correct_solution" ? 0 : undefined),
  play(task, behaviour, correct, env) {
    const variant: CodeVariant = behaviour === "correct_solution" ? (correct ? "correct" : "off_by_one") : VARIANT[behaviour]!;
    const limited = limitResponse(renderCodeResponse(task, variant), env.maxResponseTokens);
    const submitted = limited.truncated ? "unfinished" : variant;
    const hidden = grade(task, submitted, task.hidden);
    const examples = grade(task, submitted, task.examples);
    return {
      ...limited,
      turns: 1,
      components: {
        correctness: hidden.passed === hidden.total ? 1 : 0,
        tests_pass: examples.passed === examples.total ? 1 : 0,
        format: /```python\n[\s\S]*?\n```/.test(limited.response ?? "") ? 1 : 0,
      },
      testResults: hidden,
    };
  },
};
