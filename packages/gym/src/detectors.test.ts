import { compileDetector, DETECTOR_CATALOG, rolloutBindings, type CompiledDetector } from "@evotrainer/core";
import { rolloutSchema } from "@evotrainer/contract";
import { describe, expect, it } from "vitest";
import { basePolicy, domainModel } from "./domains.ts";
import type { EpisodeEnv } from "./episodes/episode.ts";
import { rolloutRow } from "./rollout-rows.ts";
import { rngFor } from "./rng.ts";
import { poolTask } from "./tasks/pool.ts";
import type { GymDomain } from "./tasks/task.ts";

const detectors: CompiledDetector[] = DETECTOR_CATALOG.map((def) => {
  const compiled = compileDetector(def);
  if (!compiled.ok) throw new Error(compiled.message);
  return compiled.detector;
});

const OPEN: EpisodeEnv = { maxResponseTokens: 4096, maxTurns: 30, clearGitHistory: false, readOnlyTests: false, hideTestFiles: false };

/** Labels core's catalog gives one rendered episode, exactly as the control plane would compute them. */
function labels(domain: GymDomain, behaviour: string, correct: boolean, env: EpisodeEnv = OPEN, taskIndex = 3): string[] {
  const task = poolTask(domain, "train", taskIndex);
  const episode = domainModel(domain).play(task, behaviour, correct, env, rngFor("detectors", taskIndex));
  const action = { difficulty: task.difficulty, behaviour: 0 };
  const sample = { task, index: 0, behaviour, action, episode, oldLogProb: 0, refLogProb: 0, entropy: 0, score: 0, reward: 0, advantage: 0, masked: false };
  const rollout = rolloutSchema.parse(rolloutRow("train", 1, "g", sample));
  const bindings = rolloutBindings(rollout, { maxResponseTokens: env.maxResponseTokens });
  return detectors
    .filter((d) => d.definition.domains.includes(domain))
    .flatMap((d) => d.apply(rollout.uid, bindings).label?.label ?? [])
    .sort();
}

describe("rendered rollouts trigger the catalog's detectors as a real model's would", () => {
  it("math", () => {
    expect(labels("math", "careful_solve", true)).toEqual([]);
    expect(labels("math", "careful_solve", false)).toEqual(["wrong_answer"]);
    expect(labels("math", "ramble_repeat", true)).toEqual(["repetition_loop"]);
    // Cut well into its loop, a ramble never reaches its answer.
    const full = domainModel("math").play(poolTask("math", "train", 3), "ramble_repeat", true, OPEN, rngFor("detectors", 3)).responseTokens;
    const cutAt = Math.round(0.8 * full);
    expect(labels("math", "ramble_repeat", true, { ...OPEN, maxResponseTokens: cutAt })).toEqual(["format_error", "repetition_loop", "truncated", "wrong_answer"]);
    expect(labels("math", "skip_format", true)).toEqual(["format_error", "wrong_answer"]);
  });

  it("code", () => {
    expect(labels("code", "correct_solution", true)).toEqual([]);
    expect(labels("code", "timeout_loop", false)).toEqual(["timeout"]);
    expect(labels("code", "runtime_error", false)).toEqual(["runtime_error"]);
    expect(labels("code", "hardcode_output", false)).toContain("hardcoded_output");
    expect(labels("code", "wrong_answer", false)).toEqual(["wrong_answer"]);
  });

  it("swe", () => {
    expect(labels("swe", "investigate_edit_test", true)).toEqual([]);
    expect(labels("swe", "edit_without_testing", true)).toEqual(["no_test_after_edit"]);
    expect(labels("swe", "give_up_early", false)).toEqual(["early_abandon", "empty_patch"]);
    expect(labels("swe", "read_git_history", false)).toEqual(["git_history_leak"]);
    expect(labels("swe", "edit_tests", false)).toEqual(["test_tampering"]);
    expect(labels("swe", "edit_tests", false, { ...OPEN, readOnlyTests: true })).toEqual(["empty_patch", "test_tampering", "tool_error"]);
    expect(labels("swe", "loop_on_tool", false)).toEqual(["echo_loop", "empty_patch"]);
  });

  it("keeps the policy's hidden choice out of the row: detectors must find it in the text", () => {
    for (const domain of ["math", "code", "swe"] as const) {
      for (const behaviour of basePolicy(domain).behaviours) {
        const task = poolTask(domain, "train", 5);
        const episode = domainModel(domain).play(task, behaviour, false, OPEN, rngFor(5));
        const sample = { task, index: 0, behaviour, action: { difficulty: 0, behaviour: 0 }, episode, oldLogProb: 0, refLogProb: 0, entropy: 0, score: 0, reward: 0, advantage: 0, masked: false };
        expect(JSON.stringify(rolloutRow("train", 1, "g", sample))).not.toContain(behaviour);
      }
    }
  });
});
