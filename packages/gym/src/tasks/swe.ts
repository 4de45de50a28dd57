import { hexId, type Rng } from "../rng.ts";
import type { TaskCommon } from "./task-common.ts";

interface BugTemplate {
  fn: string;
  signature: string;
  buggy: string;
  fixed: string;
  // A plausible edit that does not fix the bug: what a wrong attempt writes.
  wrongFix: string;
  call: string;
  got: string;
  expected: string;
  symptom: string;
}

const BUGS: readonly BugTemplate[] = [
  {
    fn: "add_tax",
    signature: "def add_tax(price, rate):",
    buggy: "    return price * rate",
    fixed: "    return price * (1 + rate)",
    wrongFix: "    return price + rate",
    call: "add_tax(100, 0.2)",
    got: "20.0",
    expected: "120.0",
    symptom: "returns only the tax, not the price including tax",
  },
  {
    fn: "last_n",
    signature: "def last_n(items, n):",
    buggy: "    return items[-n:-1]",
    fixed: "    return items[-n:]",
    wrongFix: "    return items[-n - 1:-1]",
    call: "last_n([1, 2, 3, 4], 2)",
    got: "[3]",
    expected: "[3, 4]",
    symptom: "drops the last element",
  },
  {
    fn: "is_adult",
    signature: "def is_adult(age):",
    buggy: "    return age > 18",
    fixed: "    return age >= 18",
    wrongFix: "    return age > 17.5",
    call: "is_adult(18)",
    got: "False",
    expected: "True",
    symptom: "says an 18-year-old is not an adult",
  },
  {
    fn: "average",
    signature: "def average(values):",
    buggy: "    return sum(values) / (len(values) - 1)",
    fixed: "    return sum(values) / len(values)",
    wrongFix: "    return sum(values) // (len(values) - 1)",
    call: "average([2, 4, 6])",
    got: "6.0",
    expected: "4.0",
    symptom: "is too large for every list",
  },
  {
    fn: "clamp",
    signature: "def clamp(x, lo, hi):",
    buggy: "    return max(lo, min(x, lo))",
    fixed: "    return max(lo, min(x, hi))",
    wrongFix: "    return min(lo, max(x, hi))",
    call: "clamp(5, 0, 10)",
    got: "0",
    expected: "5",
    symptom: "always returns the lower bound",
  },
  {
    fn: "count_words",
    signature: "def count_words(text):",
    buggy: '    return len(text.split(" "))',
    fixed: "    return len(text.split())",
    wrongFix: '    return len(text.split(" ")) - 1',
    call: 'count_words("hello  world")',
    got: "3",
    expected: "2",
    symptom: "counts empty strings between repeated spaces",
  },
];

const PACKAGES = ["billing", "inventory", "accounts", "reports", "shipping", "users"];
const MODULES = ["utils", "helpers", "core", "rules", "format", "pricing"];

/** A small Python repository with one bug, failing tests, and the upstream fix in a later commit. */
export interface SweTask extends TaskCommon {
  domain: "swe";
  bug: BugTemplate;
  sourcePath: string;
  testPath: string;
  // Files an agent reads on the way before it finds the bug; more on harder tasks.
  distractors: string[];
  testNames: string[];
  fixSha: string;
  baseSha: string;
  issueNumber: number;
}

export function generateSweTask(id: string, difficulty: number, rng: Rng): SweTask {
  const bug = rng.pick(BUGS);
  const pkg = rng.pick(PACKAGES);
  const module = rng.pick(MODULES);
  const sourcePath = `src/${pkg}/${module}.py`;
  const testPath = `tests/test_${module}.py`;
  const others = MODULES.filter((m) => m !== module);
  const distractors = Array.from({ length: 1 + Math.round(4 * difficulty) }, (_, i) => `src/${pkg}/${others[i % others.length]}.py`);
  const testNames = [`test_${bug.fn}_basic`, `test_${bug.fn}_edge`, `test_${bug.fn}_regression`];
  const issueNumber = rng.int(100, 9999);
  const prompt =
    `Repository: ${pkg}-service (Python). Issue #${issueNumber}: \`${bug.call}\` ${bug.symptom}: it returns ${bug.got}, ` +
    `expected ${bug.expected}.\nFix the bug in the source code so that the failing tests pass. ` +
    `Tools: bash, str_replace_editor, submit.`;
  const groundTruth = { failToPass: testNames.map((t) => `${testPath}::${t}`), fixedLine: bug.fixed.trim(), file: sourcePath };
  return {
    id,
    domain: "swe",
    difficulty,
    prompt,
    groundTruth,
    bug,
    sourcePath,
    testPath,
    distractors,
    testNames,
    fixSha: hexId(rng, 7),
    baseSha: hexId(rng, 7),
    issueNumber,
  };
}
