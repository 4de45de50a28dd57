import { down, up } from "./change.ts";
import { clipHigher } from "./changes/clip-higher.ts";
import { raiseComponentWeight } from "./changes/component-weight.ts";
import { curriculum } from "./changes/curriculum.ts";
import { dropGameableComponent } from "./changes/drop-gameable-component.ts";
import { dynamicSampling } from "./changes/dynamic-sampling.ts";
import { entropyBonus } from "./changes/entropy-bonus.ts";
import { envHardening } from "./changes/env-hardening.ts";
import { largerGroup } from "./changes/group-size.ts";
import { lowerLearningRate } from "./changes/learning-rate.ts";
import { overlongShaping } from "./changes/overlong-shaping.ts";
import { hotterSampling } from "./changes/temperature.ts";
import { largerTokenBudget } from "./changes/token-budget.ts";
import { validityPenalty } from "./changes/validity-penalty.ts";
import type { PlaybookRule } from "./playbook-rule.ts";

/**
 * Findings of the default harness mapped to the changes that answer them. Order breaks ties between
 * findings of the same level: validity first (a gamed reward makes every other number a lie), then
 * the training signal, then behaviour.
 */
export const PLAYBOOK: readonly PlaybookRule[] = [
  {
    id: "validity/test-tampering",
    symptom: { sources: ["validity-violations", "label:test_tampering"], label: "test_tampering" },
    changes: [envHardening("readOnlyTests", "test_tampering"), validityPenalty("test_tampering"), dropGameableComponent("tests_pass", "test_tampering")],
  },
  {
    id: "validity/git-history-leak",
    symptom: { sources: ["validity-violations", "label:git_history_leak"], label: "git_history_leak" },
    changes: [envHardening("clearGitHistory", "git_history_leak"), validityPenalty("git_history_leak")],
  },
  {
    id: "validity/hardcoded-output",
    symptom: { sources: ["validity-violations", "label:hardcoded_output"], label: "hardcoded_output" },
    changes: [dropGameableComponent("tests_pass", "hardcoded_output")],
  },
  {
    id: "signal/dead-groups",
    symptom: { sources: ["dead-groups-crit", "dead-groups-warn"] },
    changes: [dynamicSampling, largerGroup, curriculum],
  },
  {
    id: "signal/entropy-collapse",
    symptom: { sources: ["entropy-collapse"] },
    changes: [clipHigher, lowerLearningRate, entropyBonus(up("trainer.entropy"))],
  },
  {
    id: "behaviour/truncation",
    symptom: { sources: ["truncation-crit", "truncation-warn"] },
    changes: [overlongShaping(down("truncation_rate")), largerTokenBudget],
  },
  {
    id: "signal/length-hacking",
    symptom: { sources: ["length-hacking"] },
    changes: [overlongShaping(down("length_reward_corr"))],
  },
  {
    id: "score/reward-flat",
    symptom: { sources: ["reward-flat"] },
    changes: [dynamicSampling, hotterSampling],
  },
  {
    id: "behaviour/format-error",
    symptom: { sources: ["label:format_error"], label: "format_error", minRate: 0.05 },
    changes: [raiseComponentWeight("format", "format_error")],
  },
  {
    id: "behaviour/empty-patch",
    symptom: { sources: ["label:empty_patch"], label: "empty_patch", minRate: 0.05 },
    changes: [raiseComponentWeight("format", "empty_patch")],
  },
  {
    id: "behaviour/repetition-loop",
    symptom: { sources: ["label:repetition_loop"], label: "repetition_loop", minRate: 0.05 },
    changes: [overlongShaping(down("label_rate.repetition_loop")), entropyBonus(down("label_rate.repetition_loop"))],
  },
  {
    id: "behaviour/echo-loop",
    symptom: { sources: ["label:echo_loop"], label: "echo_loop", minRate: 0.05 },
    changes: [overlongShaping(down("label_rate.echo_loop"))],
  },
];
