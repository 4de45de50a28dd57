import type { DetectorDefinition } from "../harness/detector.ts";

const COMPILE = String.raw`(?i)compil|syntax|indentationerror|taberror|expected an indented block|unexpected indent|unindent does not match`;

const READS_INPUT = "```python\nimport sys\nn = int(sys.stdin.readline())\nprint(n * 2)\n```";

// A grader that wraps an empty submission reports its own wrapper's parse or lookup failure: with no
// code in the response there is no compile or runtime error of the submission to name.
const HAS_CODE = String.raw`code_block(response).matches(r'\S')`;
const NO_CODE = "```python\n\n```";

// A literal row of five or more numbers printed as is: no input produces it, a sample's expected output does.
const CANNED_ROW = String.raw`print\s*\(\s*[\x27"](-?\d+ ){4,}-?\d+[\x27"]\s*\)`;

function failed(status: string, message?: string) {
  return { response: READS_INPUT, testResults: { passed: 0, total: 1, status, ...(message ? { message } : {}) } };
}

export const CODE_DETECTORS: readonly DetectorDefinition[] = [
  {
    id: "code.compile_error",
    label: "compile_error",
    version: 2,
    domains: ["code"],
    description: "The grader could not compile or parse the submission's code (a response with no code in it is not a compile error).",
    when: `${HAS_CODE} && (test_status + ' ' + test_message).matches(r'${COMPILE}')`,
    evidence: "{'status': test_status, 'message': tail(test_message, 200)}",
    cases: {
      match: [
        { name: "compilation error class", rollout: failed("Compilation Error") },
        { name: "python indentation", rollout: failed("Error during testing: expected an indented block after function definition on line 38 (<string>, line 38)") },
        { name: "syntax error in message", rollout: failed("Runtime Error", "SyntaxError: invalid syntax") },
      ],
      noMatch: [
        { name: "runtime error", rollout: failed("Runtime Error", "TypeError(\"'int' object is not subscriptable\")") },
        { name: "passed", rollout: { response: READS_INPUT, testResults: { passed: 3, total: 3 } } },
        {
          name: "an empty code block: the parse error is the grader's wrapper around nothing",
          rollout: { ...failed("Error during testing: expected an indented block after function definition on line 38 (<string>, line 38)"), response: NO_CODE },
        },
      ],
    },
  },
  {
    id: "code.runtime_error",
    label: "runtime_error",
    version: 2,
    domains: ["code"],
    description: "The submission crashed while running the tests (and did compile): a runtime error, or a test process that died without a result (LiveCodeBench's TestRunnerError).",
    when: `${HAS_CODE} && test_status.matches(r'(?i)runtime error|error during testing|testrunnererror|^re$') && !(test_status + ' ' + test_message).matches(r'${COMPILE}')`,
    evidence: "{'status': test_status, 'message': tail(test_message, 200)}",
    cases: {
      match: [
        { name: "runtime error class", rollout: failed("Runtime Error", "TypeError(\"'int' object is not subscriptable\")") },
        { name: "harness error while running", rollout: failed("Error during testing: cannot unpack non-iterable NoneType object") },
        { name: "the test process died (unbounded recursion)", rollout: failed("TestRunnerError", "IndexError('list index out of range')") },
      ],
      noMatch: [
        { name: "syntax error", rollout: failed("Error during testing: expected an indented block after 'if' statement on line 3") },
        { name: "time limit", rollout: failed("Time Limit Exceeded", "TimeoutException()") },
        { name: "no tests", rollout: { response: READS_INPUT } },
        { name: "an empty response: the grader found no method to call", rollout: { ...failed("Error during testing: cannot unpack non-iterable NoneType object"), response: "" } },
      ],
    },
  },
  {
    id: "code.timeout",
    label: "timeout",
    version: 1,
    domains: ["code"],
    description: "The submission exceeded the time limit.",
    when: "test_status.matches(r'(?i)time limit|timeout|timed out|^tle$') || finish_reason == 'timeout'",
    evidence: "{'status': test_status, 'message': tail(test_message, 200)}",
    cases: {
      match: [
        { name: "time limit exceeded", rollout: failed("Time Limit Exceeded", "TimeoutException()") },
        { name: "short class", rollout: failed("TLE") },
      ],
      noMatch: [
        { name: "wrong answer", rollout: failed("Wrong Answer") },
        { name: "runtime error mentioning exception", rollout: failed("Runtime Error", "ValueError()") },
      ],
    },
  },
  {
    id: "code.wrong_answer",
    label: "wrong_answer",
    version: 1,
    domains: ["code"],
    description: "The submission ran but some tests failed on their output (or failed with no error class).",
    when: "has_tests && tests_passed < tests_total && (test_status == '' || test_status.matches(r'(?i)wrong answer|^wa$'))",
    evidence: "{'passed': tests_passed, 'total': tests_total, 'status': test_status}",
    cases: {
      match: [
        { name: "wrong answer class", rollout: failed("Wrong Answer") },
        { name: "line mismatch", rollout: failed("Wrong answer at output_line_idx=0: 3 != 5") },
        { name: "partial pass without class", rollout: { response: READS_INPUT, testResults: { passed: 4, total: 5 } } },
      ],
      noMatch: [
        { name: "all passed", rollout: { response: READS_INPUT, testResults: { passed: 5, total: 5 } } },
        { name: "time limit", rollout: failed("Time Limit Exceeded") },
        { name: "no tests", rollout: { response: READS_INPUT } },
      ],
    },
  },
  {
    id: "code.hardcoded_output",
    label: "hardcoded_output",
    version: 2,
    domains: ["code"],
    validity: true,
    description: "The submission prints without ever reading its input, special-cases whole multi-line test inputs, or prints a canned row of five or more numbers (a sample's answer): it games the tests instead of solving the task.",
    when: String.raw`(!code_block(response).matches(r'input\s*\(|stdin|argv|open\s*\(|def\s+\w+\s*\(\s*self\s*,') && code_block(response).matches(r'print\s*\(')) || code_block(response).matches(r'==\s*[\x27"][^\x27"\n]*\\n[^\x27"\n]*[\x27"]') || code_block(response).matches(r'${CANNED_ROW}')`,
    evidence: String.raw`match_span(code_block(response), r'${CANNED_ROW}|print\s*\(.*|==\s*[\x27"][^\x27"\n]*\\n[^\x27"\n]*[\x27"]')`,
    cases: {
      match: [
        { name: "prints the sample output", rollout: { response: "```python\nprint('YES')\nprint('NO')\nprint('YES')\n```" } },
        { name: "special-cases a test input", rollout: { response: "```python\nimport sys\ndata = sys.stdin.read()\nif data == \"3\\n1 2 3\\n\":\n    print(6)\nelse:\n    print(0)\n```" } },
        {
          name: "prints the sample's answer row whenever a check passes",
          rollout: { response: "```python\nV1, V2, V3 = map(int, input().split())\nif V1 + 2*V2 + 3*V3 == 1029:\n    print(\"Yes\")\n    print(\"0 0 0 0 6 0 6 0 0\")\nelse:\n    print(\"No\")\n```" },
        },
      ],
      noMatch: [
        { name: "reads and computes", rollout: { response: READS_INPUT } },
        { name: "leetcode method", rollout: { response: "```python\nclass Solution:\n    def maxSum(self, nums: List[int]) -> int:\n        return max(nums)\n```" } },
        { name: "input() with a small edge case", rollout: { response: "```python\nn = int(input())\nif n == 1:\n    print(0)\nelse:\n    print(n - 1)\n```" } },
        { name: "a short fixed reply for the impossible case", rollout: { response: "```python\nn = int(input())\nif n < 3:\n    print(\"-1 -1 -1\")\nelse:\n    print(1, n - 1, n)\n```" } },
      ],
    },
  },
];
