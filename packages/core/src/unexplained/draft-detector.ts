import type { DetectorCase, DetectorDefinition, Domain } from "../harness/detector.ts";
import type { Harness } from "../harness/harness.ts";
import { ANSWER_KINDS } from "./answer-format.ts";
import type { ErrorSignature } from "./error-signature.ts";

const PLACEHOLDER = /<(?:n|q|id|hex|path|url|value)>…?|…/g;
const NO_ERROR_LINE = "failed with no error line";

/** RE2 for a literal piece of text, safe inside a CEL raw string r'…' (which cannot hold a quote). */
function literal(text: string): string {
  return text
    .replace(/[\\.+*?()|[\]{}^$]/g, "\\$&")
    .replace(/'/g, "\\x27")
    .replace(/ /g, "\\s+");
}

/**
 * The RE2 pattern that matches what a normalised text was made from: literal words as they were,
 * each placeholder any run of characters on the line.
 */
export function patternOf(normalised: string): string {
  const pieces = normalised.split(PLACEHOLDER);
  return pieces.map(literal).join(".+?").replace(/^\.\+\?|\.\+\?$/g, "");
}

/** lower_snake_case from the first words of a text, for a label. */
function slug(text: string, words = 4): string {
  const s = text
    .replace(PLACEHOLDER, " ")
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== "")
    .slice(0, words)
    .join("_");
  return /^[a-z]/.test(s) ? s : `failure_${s}`.replace(/_$/, "");
}

/** A label and detector id the harness does not use yet. */
function freshLabel(base: string, domain: Domain, harness: Pick<Harness, "detectors">): string {
  const taken = new Set(harness.detectors.flatMap((d) => [d.label, d.id]));
  for (let n = 1; ; n++) {
    const label = n === 1 ? base : `${base}_${n}`;
    if (!taken.has(label) && !taken.has(`${domain}.${label}`)) return label;
  }
}

interface Rule {
  when: string;
  evidence?: string;
  label: string;
  describes: string;
}

function trajectoryRule(s: ErrorSignature): Rule {
  const text = s.exception ?? (s.errorLine !== NO_ERROR_LINE ? s.errorLine : null);
  if (text !== null) {
    const p = patternOf(text);
    return {
      when: `tool_results.exists(r, !r.ok && r.content.matches(r'${p}'))`,
      evidence: `{'matched': tool_results.filter(r, !r.ok && r.content.matches(r'${p}')).map(r, match_span(r.content, r'${p}').text)}`,
      label: slug(s.exception ? s.exception.split(":")[0]! : text),
      describes: `a failed tool output reads "${text}"${s.program ? ` (the cluster's failing command ran ${s.program})` : ""}`,
    };
  }
  if (s.program !== null) {
    const p = `(^|[\\s"/;&|])${literal(s.program)}(\\s|"|$)`;
    return {
      when: `tool_results.exists(r, r.error) && tool_calls.exists(c, c.args.matches(r'${p}'))`,
      label: slug(`${s.program} failed silently`),
      describes: `a tool call failed with no error line, in an episode that ran ${s.program}`,
    };
  }
  return {
    when: `!tool_results.exists(r, r.error)`,
    label: "failed_without_error",
    describes: "the episode failed with no tool call failing",
  };
}

function singleResponseRule(s: ErrorSignature): Rule | null {
  if (s.exception !== null && s.source === "test_message") {
    const p = patternOf(s.exception);
    return { when: `test_message.matches(r'${p}')`, evidence: `match_span(test_message, r'${p}')`, label: slug(s.exception.split(":")[0]!), describes: `the grader's message reads "${s.exception}"` };
  }
  if (s.testStatus !== null) {
    const p = `^${patternOf(s.testStatus)}`;
    return { when: `test_status.matches(r'${p}')`, evidence: `test_status`, label: slug(s.testStatus), describes: `the grader's status reads "${s.testStatus}"` };
  }
  return null;
}

function answerRule(format: string): Rule {
  if (format === "no answer") return { when: `final_answer(response) == ''`, evidence: `tail(response, 200)`, label: "no_final_answer", describes: "the response commits to no final answer" };
  const [where, ...rest] = format.startsWith("marked line ") ? ["marked line", ...format.slice(12).split(" ")] : format.split(" ");
  const kind = rest.join(" ");
  const known = ANSWER_KINDS.find((k) => k.kind === kind);
  const form = known
    ? `final_answer(response).matches(r'${known.pattern}')`
    : `final_answer(response) != '' && !(${ANSWER_KINDS.map((k) => `final_answer(response).matches(r'${k.pattern}')`).join(" || ")})`;
  const place = where === "boxed" ? `response.contains(r'\\boxed') && ` : "";
  return { when: `${place}${form}`, evidence: `final_answer(response)`, label: slug(`answer ${kind}`), describes: `the final answer is ${where === "boxed" ? "boxed and " : ""}${kind}` };
}

/** A must-match case from the line the signature was read from, so the draft is checked on its own source. */
function sourceCase(s: ErrorSignature): DetectorCase | null {
  if (s.raw === null) return null;
  switch (s.source) {
    case "tool_output":
      return { name: "the cluster's error line", rollout: { trajectory: [{ role: "tool", content: s.raw, isError: true }] } };
    case "test_message":
      return { name: "the cluster's grader message", rollout: { response: "", testResults: { passed: 0, total: 1, message: s.raw } } };
    case "test_status":
      return { name: "the cluster's grader status", rollout: { response: "", testResults: { passed: 0, total: 1, status: s.raw } } };
    default:
      return null;
  }
}

/**
 * A detector drafted from one cluster of unexplained failures: a CEL rule that matches the cluster's
 * signature (its error text with every placeholder matching anything on the line; a math answer's
 * form; a grader's status), a fresh label, and the cluster's own line as a must-match case. A draft
 * never has a validity role: whether a label voids a success is for people to decide after reviews.
 */
export function draftDetector(signature: ErrorSignature, domain: Domain, harness: Pick<Harness, "detectors">): DetectorDefinition {
  const rule =
    domain === "math" && signature.answerFormat !== null && signature.exception === null && signature.errorLine === null
      ? answerRule(signature.answerFormat)
      : signature.source === "test_message" || signature.source === "test_status"
        ? singleResponseRule(signature)!
        : trajectoryRule(signature);
  const label = freshLabel(rule.label, domain, harness);
  const match = sourceCase(signature);
  return {
    id: `${domain}.${label}`,
    label,
    version: 1,
    domains: [domain],
    description: `Drafted from unexplained failures "${signature.key}": ${rule.describes}.`,
    when: rule.when,
    ...(rule.evidence ? { evidence: rule.evidence } : {}),
    validity: false,
    cases: { match: match ? [match] : [], noMatch: [] },
  };
}
