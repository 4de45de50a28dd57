import type { CodeTask } from "../tasks/code.ts";

/** The programs the code policy writes: one right, the others wrong in the ways real ones are. */
export type CodeVariant = "correct" | "off_by_one" | "misread" | "infinite_loop" | "index_error" | "hardcoded";

const READ = "import sys\ndata = sys.stdin.read().split()\nn = int(data[0])";

export function renderProgram(task: CodeTask, variant: CodeVariant): string {
  const core = task.family.python;
  switch (variant) {
    case "correct":
      return `${READ}\na = list(map(int, data[1:1 + n]))\n${core}`;
    case "off_by_one":
      return `${READ}\na = list(map(int, data[1:n]))\n${core}`;
    case "misread":
      return `${READ}\na = list(map(int, data))\n${core}`;
    case "infinite_loop":
      return `${READ}\na = []\ni = 1\nwhile i <= n:\n    a.append(int(data[i]))\n${core}`;
    case "index_error":
      return `${READ}\na = list(map(int, data[1:1 + n]))\nfor i in range(n):\n    if a[i + 1] < a[i]:\n        a[i], a[i + 1] = a[i + 1], a[i]\n${core}`;
    case "hardcoded": {
      const cases = task.examples.map((t, i) => `${i === 0 ? "if" : "elif"} data == ${JSON.stringify(t.input)}:\n    print(${t.expected})`);
      return `import sys\ndata = sys.stdin.read()\n${cases.join("\n")}\nelse:\n    print(0)`;
    }
  }
}

const PREAMBLE: Record<CodeVariant, string> = {
  correct: "Read n and the list, then compute the answer in a single pass, which is O(n) and fast enough for n = 200000.",
  off_by_one: "Read n and the list, then compute the answer in a single pass, which is O(n) and fast enough for n = 200000.",
  misread: "Read all the numbers from the input and compute the answer over them.",
  infinite_loop: "Read the numbers one at a time in a loop, then compute the answer.",
  index_error: "Sort neighbouring elements first so the scan is simpler, then compute the answer.",
  hardcoded: "The examples show the expected outputs, so print them for those inputs.",
};

export function renderCodeResponse(task: CodeTask, variant: CodeVariant): string {
  // Harder problems get more analysis before the code, as a model's reasoning grows with difficulty.
  const analysis = variant === "hardcoded" ? [] : Array.from({ length: 1 + Math.round(4 * task.difficulty) }, (_, i) =>
    `Observation ${i + 1}: ${task.family.statement.toLowerCase()} Edge cases such as n = 1 and repeated values must be handled.`);
  return [...analysis, PREAMBLE[variant], "```python", renderProgram(task, variant), "```"].join("\n");
}
