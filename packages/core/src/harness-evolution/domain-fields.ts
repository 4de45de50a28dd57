import type { DetectorDefinition, Domain } from "../harness/detector.ts";
import { ROLLOUT_VARIABLES } from "../harness/rollout-variables.ts";

// Every rollout row has these, whatever its domain.
const COMMON = [
  "uid", "split", "step", "task_id", "group_id", "sample", "prompt", "response", "reward", "components",
  "response_tokens", "turns", "finish_reason", "truncated", "ground_truth", "max_response_tokens", "extra",
];
const TESTS = ["has_tests", "tests_passed", "tests_total", "test_status", "test_message"];
const AGENT = ["tool_calls", "tool_text", "tool_results", "patch"];

/**
 * The rollout variables a domain's rows actually carry: math answers have no tests and no tool
 * calls, code answers are graded by tests, swe episodes have both tests and a trajectory. A custom
 * domain may carry any of them.
 */
export const DOMAIN_FIELDS: Record<Domain, ReadonlySet<string>> = {
  math: new Set(COMMON),
  code: new Set([...COMMON, ...TESTS]),
  swe: new Set([...COMMON, ...TESTS, ...AGENT]),
  custom: new Set(Object.keys(ROLLOUT_VARIABLES)),
};

/** The rollout variables a detector's rule reads (string literals removed first, so words in regexes do not count). */
export function fieldsRead(def: Pick<DetectorDefinition, "when">): string[] {
  const code = def.when.replace(/r?'(?:[^'\\]|\\.)*'|r?"(?:[^"\\]|\\.)*"/g, "''");
  return Object.keys(ROLLOUT_VARIABLES).filter((name) => new RegExp(`(?<![\\w.])${name}(?![\\w(])`).test(code));
}

/**
 * Why a detector is not valid for a domain, or null when it is: it must be written for the domain
 * (a math final-answer rule means nothing on an agent's trajectory) and read only fields the
 * domain's rollouts have.
 */
export function domainMismatch(def: Pick<DetectorDefinition, "when" | "domains">, domain: Domain): string | null {
  if (!def.domains.includes(domain)) return `written for ${def.domains.join(", ")}, not ${domain}`;
  const missing = fieldsRead(def).filter((f) => !DOMAIN_FIELDS[domain].has(f));
  return missing.length > 0 ? `reads ${missing.join(", ")}, which ${domain} rollouts do not have` : null;
}
