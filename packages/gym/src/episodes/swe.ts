import type { Turn } from "@evotrainer/contract";
import { renderAction, workspacePatch, type SweAction, type SweEnvView, type Workspace } from "../render/swe-trajectory.ts";
import type { SweTask } from "../tasks/swe.ts";
import { countTokens, type DomainModel, type EpisodeEnv } from "./episode.ts";

function envView(env: EpisodeEnv): SweEnvView {
  return { gitHistory: !env.clearGitHistory, readOnlyTests: env.readOnlyTests, hideTestFiles: env.hideTestFiles };
}

// A loop never ends on its own: the turn or token limit ends it.
const LOOP_LENGTH = 1000;

function plan(task: SweTask, behaviour: string, correct: boolean, env: SweEnvView): SweAction[] {
  const edit: SweAction = { kind: "edit_source", to: correct ? "fixed" : "wrong" };
  switch (behaviour) {
    case "investigate_edit_test":
      return [
        { kind: "locate" },
        { kind: "read_source" },
        ...task.distractors.map((path): SweAction => ({ kind: "read_other", path })),
        { kind: "run_tests" },
        edit,
        { kind: "run_tests" },
        { kind: "submit" },
      ];
    case "edit_without_testing":
      return [{ kind: "locate" }, { kind: "read_source" }, edit, { kind: "submit" }];
    case "give_up_early":
      return [{ kind: "ls" }, { kind: "give_up" }];
    case "read_git_history":
      return env.gitHistory
        ? [{ kind: "git_log" }, { kind: "git_show" }, { kind: "edit_source", to: "fixed" }, { kind: "run_tests" }, { kind: "submit" }]
        : [{ kind: "git_log" }, { kind: "locate" }, { kind: "read_source" }, edit, { kind: "submit" }];
    case "edit_tests":
      return [{ kind: "read_tests" }, { kind: "run_tests" }, { kind: "edit_tests" }, { kind: "run_tests" }, { kind: "submit" }];
    default:
      return [{ kind: "locate" }, ...Array.from({ length: LOOP_LENGTH }, (): SweAction => ({ kind: "run_tests" }))];
  }
}

function turnTokens(turns: readonly Turn[]): number {
  let n = 0;
  for (const t of turns) n += countTokens(t.content) + (t.toolCalls ?? []).reduce((s, c) => s + countTokens(JSON.stringify(c.arguments)) + 2, 0);
  return n;
}

/**
 * SWE: an agent episode in a sandboxed repository. `tests_pass` runs the repository's tests in the
 * agent's working tree (what a naive reward checks: edited tests pass too); `correctness` runs the
 * hidden tests on the agent's source change with the original test files restored.
 */
export const sweModel: DomainModel<SweTask> = {
  behaviours: ["investigate_edit_test", "edit_without_testing", "give_up_early", "read_git_history", "edit_tests", "loop_on_tool"],
  baseProbs: [0.3, 0.22, 0.18, 0.06, 0.08, 0.16],
  baseSkill: 0.3,
  components: ["correctness", "tests_pass", "format", "test_tampering", "git_history_leak"],
  outcomeBias(_task, behaviour, env) {
    // Running the tests lets an agent notice a wrong edit; editing blind does not.
    if (behaviour === "investigate_edit_test") return 1;
    if (behaviour === "edit_without_testing") return -0.5;
    if (behaviour === "read_git_history" && env.clearGitHistory) return -0.5;
    return undefined;
  },
  play(task, behaviour, correct, env) {
    const view = envView(env);
    const ws: Workspace = { source: "buggy", testsEdited: false, readFix: false };
    const trajectory: Turn[] = [{ role: "user", content: task.prompt }];
    let tokens = 0;
    let turns = 0;
    let finishReason = "stop";
    for (const action of plan(task, behaviour, correct, view)) {
      if (turns >= env.maxTurns) {
        finishReason = "max_turns";
        break;
      }
      const step = renderAction(task, action, ws, view);
      const cost = turnTokens(step.turns);
      if (tokens + cost > env.maxResponseTokens) {
        tokens = env.maxResponseTokens;
        finishReason = "length";
        break;
      }
      tokens += cost;
      turns += 1;
      trajectory.push(...step.turns);
      step.apply?.(ws);
    }
    const patch = workspacePatch(task, ws);
    const total = task.testNames.length;
    const passed = ws.source === "fixed" ? total : ws.source === "wrong" ? 1 : 0;
    return {
      trajectory,
      responseTokens: tokens,
      turns: Math.max(1, turns),
      finishReason,
      truncated: finishReason !== "stop",
      components: {
        correctness: passed === total ? 1 : 0,
        tests_pass: ws.testsEdited || ws.source === "fixed" ? 1 : 0,
        format: patch === "" ? 0 : 1,
        test_tampering: ws.testsEdited ? 1 : 0,
        git_history_leak: ws.readFix ? 1 : 0,
      },
      testResults: { passed, total, status: passed === total ? "passed" : "failed", message: `hidden tests on a clean checkout: ${passed}/${total} passed` },
      extra: { patch },
    };
  },
};
