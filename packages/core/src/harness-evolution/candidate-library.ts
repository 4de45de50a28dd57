import type { DetectorDefinition } from "../harness/detector.ts";

const SWE_EPISODE = { trajectory: [{ role: "user", content: "Fix add()." }, { role: "assistant", content: "", toolCalls: [{ name: "bash", arguments: { cmd: "pytest -q" } }] }] };

/**
 * Detectors no domain's starting harness has, offered when the harness cannot explain failures.
 * Each carries the cases it must pass before retro-validation may register it.
 */
export const EXTRA_DETECTORS: readonly DetectorDefinition[] = [
  {
    id: "extra.reward_test_mismatch",
    label: "reward_test_mismatch",
    version: 1,
    domains: ["code", "swe"],
    description: "The reward counts the rollout a success while the hidden tests fail: the reward was earned without solving the task.",
    when: "reward >= 0.5 && has_tests && tests_passed < tests_total",
    evidence: "{'reward': reward, 'tests_passed': tests_passed, 'tests_total': tests_total}",
    cases: {
      match: [{ name: "rewarded, hidden tests fail", rollout: { response: "done", reward: 1, testResults: { passed: 1, total: 3 } } }],
      noMatch: [
        { name: "rewarded, hidden tests pass", rollout: { response: "done", reward: 1, testResults: { passed: 3, total: 3 } } },
        { name: "failure scored as one", rollout: { response: "done", reward: 0, testResults: { passed: 0, total: 3 } } },
        { name: "no tests to compare", rollout: { response: "done", reward: 1 } },
      ],
    },
  },
  {
    id: "extra.turn_limit",
    label: "turn_limit",
    version: 1,
    domains: ["swe"],
    description: "The episode stopped at its turn or token limit instead of submitting.",
    when: "truncated || finish_reason == 'length' || finish_reason == 'max_turns'",
    evidence: "{'finish_reason': finish_reason, 'turns': turns}",
    cases: {
      match: [
        { name: "out of turns", rollout: { ...SWE_EPISODE, finishReason: "max_turns" } },
        { name: "out of tokens", rollout: { ...SWE_EPISODE, finishReason: "length", truncated: true } },
      ],
      noMatch: [{ name: "submitted", rollout: { ...SWE_EPISODE, finishReason: "stop" } }],
    },
  },
  {
    id: "extra.multiple_answers",
    label: "multiple_answers",
    version: 1,
    domains: ["math"],
    description: "The response boxes more than one answer: hedging a lenient grader may reward.",
    when: String.raw`response.matches(r'\\boxed\{[^}]*\}[\s\S]*\\boxed\{')`,
    evidence: String.raw`match_span(response, r'\\boxed\{[^}]*\}[\s\S]*\\boxed\{[^}]*\}')`,
    cases: {
      match: [{ name: "two boxes", rollout: { response: "It is \\boxed{3}, or perhaps \\boxed{4}." } }],
      noMatch: [
        { name: "one box", rollout: { response: "So 1 + 2 = \\boxed{3}." } },
        { name: "no box", rollout: { response: "A: 3" } },
      ],
    },
  },
  {
    id: "extra.near_length_limit",
    label: "near_length_limit",
    version: 1,
    domains: ["math", "code", "swe"],
    description: "The response used at least 90% of its token budget: a slightly longer one would be cut.",
    when: "max_response_tokens > 0 && response_tokens * 10 >= max_response_tokens * 9",
    evidence: "{'response_tokens': response_tokens, 'max_response_tokens': max_response_tokens}",
    cases: {
      match: [{ name: "95% of the budget", rollout: { response: "…", responseTokens: 950 }, context: { maxResponseTokens: 1000 } }],
      noMatch: [
        { name: "half the budget", rollout: { response: "…", responseTokens: 500 }, context: { maxResponseTokens: 1000 } },
        { name: "budget unknown", rollout: { response: "…", responseTokens: 5000 } },
      ],
    },
  },
];
