import type { Rng } from "../rng.ts";
import type { TaskCommon } from "./task-common.ts";

/** One stdin/stdout test case; large cases keep only their size (their arrays are never built). */
export interface CodeTest {
  input: string;
  expected: string;
  values: number[];
  large: boolean;
}

export interface CodeFamily {
  name: string;
  statement: string;
  solve(values: readonly number[]): number;
  // The core of a Python solution over a list `a` of length n, printing the result.
  python: string;
}

/** A stdin/stdout programming problem with two visible examples and hidden tests. */
export interface CodeTask extends TaskCommon {
  domain: "code";
  family: CodeFamily;
  examples: CodeTest[];
  hidden: CodeTest[];
}

// Ordered by difficulty: a task's difficulty picks its family.
const FAMILIES: readonly CodeFamily[] = [
  {
    name: "sum",
    statement: "Print the sum of the n integers.",
    solve: (a) => a.reduce((s, x) => s + x, 0),
    python: "print(sum(a))",
  },
  {
    name: "maximum",
    statement: "Print the largest of the n integers.",
    solve: (a) => (a.length === 0 ? 0 : Math.max(...a)),
    python: "best = a[0]\nfor x in a:\n    best = max(best, x)\nprint(best)",
  },
  {
    name: "count_even",
    statement: "Print how many of the n integers are even.",
    solve: (a) => a.filter((x) => x % 2 === 0).length,
    python: "print(sum(1 for x in a if x % 2 == 0))",
  },
  {
    name: "distinct",
    statement: "Print how many distinct values the n integers take.",
    solve: (a) => new Set(a).size,
    python: "print(len(set(a)))",
  },
  {
    name: "even_pairs",
    statement: "Print the number of pairs i < j such that a_i + a_j is even.",
    solve: (a) => {
      const even = a.filter((x) => x % 2 === 0).length;
      const odd = a.length - even;
      return (even * (even - 1)) / 2 + (odd * (odd - 1)) / 2;
    },
    python: "even = sum(1 for x in a if x % 2 == 0)\nodd = n - even\nprint(even * (even - 1) // 2 + odd * (odd - 1) // 2)",
  },
  {
    name: "max_subarray",
    statement: "Print the largest sum of a non-empty contiguous subarray.",
    solve: (a) => {
      let best = a[0] ?? 0;
      let run = 0;
      for (const x of a) {
        run = Math.max(x, run + x);
        best = Math.max(best, run);
      }
      return best;
    },
    python: "best = a[0]\nrun = 0\nfor x in a:\n    run = max(x, run + x)\n    best = max(best, run)\nprint(best)",
  },
];

export function generateCodeTask(id: string, difficulty: number, rng: Rng): CodeTask {
  const family = FAMILIES[Math.min(FAMILIES.length - 1, Math.floor(difficulty * FAMILIES.length))]!;
  const negative = family.name === "max_subarray";
  const small = (): CodeTest => {
    const values = Array.from({ length: rng.int(1, 6) }, () => rng.int(negative ? -9 : 0, 9));
    return test(family, values);
  };
  const examples = [small(), small()];
  const hidden = [...Array.from({ length: 8 }, small), largeTest(200_000), largeTest(200_000)];
  const prompt =
    `${family.statement}\n\nInput: the first line holds n (1 ≤ n ≤ 200000), the second line n integers.\n` +
    `Output: one integer.\n\n` +
    examples.map((t, i) => `Example ${i + 1}\nInput:\n${t.input}Output:\n${t.expected}\n`).join("\n") +
    `\nWrite a Python 3 program that reads standard input and prints the answer, in a \`\`\`python block.`;
  const groundTruth = { family: family.name, tests: hidden.map((t) => ({ input: t.input, expected: t.expected })) };
  return { id, domain: "code", difficulty, prompt, groundTruth, family, examples, hidden };
}

function test(family: CodeFamily, values: number[]): CodeTest {
  return { input: `${values.length}\n${values.join(" ")}\n`, expected: String(family.solve(values)), values, large: false };
}

function largeTest(n: number): CodeTest {
  return { input: `${n}\n<${n} integers>\n`, expected: "<checked by the grader>", values: [], large: true };
}
