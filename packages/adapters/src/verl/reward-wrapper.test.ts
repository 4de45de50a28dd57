import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { answersEqual, finalAnswer } from "@evotrainer/core";
import { parsePythonJson } from "../python-json.ts";
import { rewardWrapperModule, type RewardWrapperConfig } from "./reward-wrapper.ts";
import { verlDumpToRollouts } from "./verl-dump.ts";
import { verlResponseKey, verlRewardRecords, withRewardComponents } from "./verl-reward-components.ts";

const dir = mkdtempSync(join(tmpdir(), "evo-reward-wrapper-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Call {
  data_source: string;
  solution_str: string;
  ground_truth: unknown;
  extra_info?: Record<string, unknown>;
}
type Outcome = { ok: Record<string, number> } | { error: string };

// Loads the module as verl's get_custom_reward_fn does (spec_from_file_location) and calls
// compute_score with verl's keyword arguments.
const DRIVER = `
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("custom_module", sys.argv[1])
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
out = []
for call in json.load(sys.stdin):
    try:
        out.append({"ok": module.compute_score(**call)})
    except Exception as error:
        out.append({"error": f"{type(error).__name__}: {error}"})
print(json.dumps(out))
`;

/** Writes the generated module for `config` and runs `calls` through it with python3. */
function runWrapper(name: string, config: Omit<RewardWrapperConfig, "sideFile">, calls: Call[]): { outcomes: Outcome[]; sideFile: string } {
  const sideFile = join(dir, name, "output", "verl", "reward_components.jsonl");
  const module = join(dir, `${name}.py`);
  writeFileSync(module, rewardWrapperModule({ ...config, sideFile }));
  const result = spawnSync("python3", ["-c", DRIVER, module], { input: JSON.stringify(calls), encoding: "utf8" });
  if (result.error) {
    throw new Error(`python3 is needed to run the generated verl reward wrapper and could not be started (${result.error.message}); install Python 3 and put python3 on PATH`);
  }
  if (result.status !== 0) throw new Error(`python3 exited ${result.status}: ${result.stderr}`);
  return { outcomes: JSON.parse(result.stdout) as Outcome[], sideFile };
}

const sideLines = (file: string) =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => parsePythonJson(line) as Record<string, unknown>);

const math = (solution_str: string, ground_truth: string, extra_info?: Record<string, unknown>): Call => ({
  data_source: "openai/gsm8k", solution_str, ground_truth, ...(extra_info ? { extra_info } : {}),
});

describe("the verl reward wrapper", () => {
  it("scores the recipe's weighted math components as core reads answers, and writes one side line per call", () => {
    const calls = [
      math("Janet sells 16 - 3 - 4 = 9 eggs.\nShe makes 9 * 2 = $18 at the farmer’s market.\n#### 18", "18", { index: 7, uid: "0_1_0", step: 3 }),
      math("So the answer is \\boxed{26}.", "18"),
      math("Janet sells the eggs that are left over.", "18"),
      math("#### 1,000", "1000"),
      math("\\boxed{\\frac{1}{2}}", "0.5"),
      math("Final Answer: $18.", "18"),
      math("The answer is 18.5 dollars.", "18"),
      // The completion of a prompt that ends in "Answer:".
      math(" 18", "18"),
    ];
    const { outcomes, sideFile } = runWrapper("math", { domain: "math", weights: { correctness: 1, format: 0.25 }, delegate: null }, calls);

    // The same verdicts as core's finalAnswer/answersEqual, which the harness labels with.
    const expected = calls.map(({ solution_str, ground_truth }) => {
      const answer = finalAnswer(solution_str);
      const correctness = answersEqual(answer, String(ground_truth)) ? 1 : 0;
      const format = answer === "" ? 0 : 1;
      return { score: correctness + 0.25 * format, correctness, format };
    });
    expect(outcomes).toEqual(expected.map((ok) => ({ ok })));
    expect(expected.map((e) => e.score)).toEqual([1.25, 0.25, 0, 1.25, 1.25, 1.25, 0.25, 1.25]);

    const lines = sideLines(sideFile);
    expect(lines).toHaveLength(calls.length);
    expect(lines[0]).toEqual({
      key: verlResponseKey(calls[0]!.solution_str),
      gts: "18",
      data_source: "openai/gsm8k",
      score: 1.25,
      components: { correctness: 1, format: 1 },
      labels: { pred: "18" },
      uid: "0_1_0",
      step: 3,
    });
    expect(lines[1]).toMatchObject({ components: { correctness: 0, format: 1 }, labels: { pred: "26" } });
    expect(lines[1]).not.toHaveProperty("step");
  });

  it("asks the job's reward module for the components it has no built-in for, awaiting an async one", () => {
    const userModule = join(dir, "user_reward.py");
    writeFileSync(
      userModule,
      [
        "import asyncio",
        "def by_tests(data_source, solution_str, ground_truth, extra_info=None, **kwargs):",
        "    passed = 'return a + b' in solution_str",
        "    return {'score': 42.0, 'tests_pass': 1.0 if passed else 0.0, 'correctness': passed, 'verdict': 'Accepted' if passed else 'Wrong Answer'}",
        "async def judged(data_source, solution_str, ground_truth, extra_info=None, **kwargs):",
        "    await asyncio.sleep(0)",
        "    return 0.5",
        "",
      ].join("\n"),
    );
    const code = (solution_str: string): Call => ({ data_source: "livecodebench", solution_str, ground_truth: { tests: 3 } });
    const fenced = "```python\ndef add(a, b):\n    return a + b\n```";
    const { outcomes, sideFile } = runWrapper(
      "code",
      { domain: "code", weights: { tests_pass: 1, correctness: 2, format: 0.5 }, delegate: { path: userModule, name: "by_tests" } },
      [code(fenced), code("def add(a, b): return a - b")],
    );
    // The module's own "score" is not the total: the recipe's weights make it.
    expect(outcomes).toEqual([
      { ok: { score: 3.5, tests_pass: 1, correctness: 1, format: 1 } },
      { ok: { score: 0, tests_pass: 0, correctness: 0, format: 0 } },
    ]);
    expect(sideLines(sideFile).map((l) => l.labels)).toEqual([{ verdict: "Accepted" }, { verdict: "Wrong Answer" }]);
    expect(sideLines(sideFile)[0]!.gts).toEqual({ tests: 3 });

    // A bare number from the module is what verl reads as accuracy: the correctness component.
    const judged = runWrapper("judged", { domain: "math", weights: { correctness: 1, format: 1 }, delegate: { path: userModule, name: "judged" } }, [math("#### 3", "4")]);
    expect(judged.outcomes).toEqual([{ ok: { score: 1.5, correctness: 0.5, format: 1 } }]);
  });

  it("fails the call, naming the components, when neither a built-in nor the reward module computes one", () => {
    const userModule = join(dir, "partial_reward.py");
    writeFileSync(userModule, "def compute_score(data_source, solution_str, ground_truth, extra_info=None, **kwargs):\n    return {'tests_pass': 1}\n");
    const { outcomes } = runWrapper("partial", { domain: "swe", weights: { tests_pass: 1, test_tampering: -1 }, delegate: { path: userModule, name: "compute_score" } }, [
      { data_source: "swe", solution_str: "patch", ground_truth: "" },
    ]);
    expect(outcomes).toEqual([{ error: expect.stringMatching(/KeyError: .*\['test_tampering'\] were not computed.*swe domain/) }]);
  });

  it("writes side lines that join back to verl's training dumps, which carry only the score", () => {
    const right = "9 * 2 = 18\n#### 18";
    const wrong = "13 * 2 = 26\n#### 26";
    const { sideFile } = runWrapper("join", { domain: "math", weights: { correctness: 1, format: 0.5 }, delegate: null }, [math(right, "18"), math(wrong, "18"), math(right, "20")]);
    const records = verlRewardRecords(sideLines(sideFile));
    const dump = verlDumpToRollouts(
      [
        { input: "p", output: right, gts: "18", score: 1.5, step: 4, uid: "0_0_0" },
        { input: "p", output: wrong, gts: "18", score: 0.5, step: 4, uid: "0_1_0" },
        { input: "q", output: right, gts: "20", score: 0.5, step: 4, uid: "1_0_0" },
        { input: "r", output: "never scored by the wrapper", gts: "1", score: 0, step: 4, uid: "2_0_0" },
      ],
      { split: "train", step: 4 },
    );
    const joined = withRewardComponents(dump, records);
    expect(joined.map((r) => r.rewardComponents)).toEqual([{ correctness: 1, format: 1 }, { correctness: 0, format: 1 }, { correctness: 0, format: 1 }, {}]);
    expect(joined[1]!.extra).toEqual({ pred: "26", verlUid: "0_1_0" });
    expect(joined[3]).toEqual(dump[3]);
  });
});
