import type { DetectorDefinition } from "../harness/detector.ts";

const ORDINALS = ["first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth"];
const LOOP = ORDINALS.map((d, i) => `On the ${d} day the plant will grow ${i + 1}+1=${i + 2} new leaves.`).join("\n");

const SOLUTION = "Janet sells 16 - 3 - 4 = 9 duck eggs a day.\nShe makes 9 * 2 = $18 every day at the farmer's market.";

// A Python error in a tool's output: a traceback, or an "XError: message" line.
// The text ends as a finished response does: a final answer near its end, or a sentence closed by its
// punctuation (and any closing quote, bracket, $ or ** after it).
const ENDS_FINISHED = String.raw`(final_answer(tail(response, 300)) != '' || tail(response, 40).matches(r'[.!?\x{3002}\x{FF01}\x{FF1F}][\x22\x27\x{201D}\x{2019})\]*$]*\s*$'))`;

const PY_ERROR = String.raw`(?m)(Traceback \(most recent call last\)|^\w*(Error|Exception): )`;

export const MATH_DETECTORS: readonly DetectorDefinition[] = [
  {
    id: "math.truncated",
    label: "truncated",
    version: 3,
    domains: ["math"],
    description: "The response hit the length limit: the data says so (truncated flag, finish reason length), or, only when the data has no finish reason, it used every token the recipe allows and does not end with a final answer or a finished sentence (token counts of tool-using models include text the model did not write). The evidence names the source that decided.",
    when: `truncated || finish_reason == 'length' || (finish_reason == '' && max_response_tokens > 0 && response_tokens >= max_response_tokens && !${ENDS_FINISHED})`,
    evidence: "{'source': truncated ? 'truncated flag' : finish_reason == 'length' ? 'finish_reason' : 'token limit', 'finish_reason': finish_reason, 'response_tokens': response_tokens, 'max_response_tokens': max_response_tokens, 'tail': tail(response, 80)}",
    cases: {
      match: [
        { name: "finish reason length", rollout: { response: "Let me compute 3 + 4 =", finishReason: "length" } },
        { name: "trainer flag", rollout: { response: "Step 1:", truncated: true } },
        { name: "all tokens used", rollout: { response: "Step 1:", responseTokens: 4096 }, context: { maxResponseTokens: 4096 } },
        { name: "all tokens used, cut mid-sentence after an early answer", rollout: { response: `\\boxed{18} is my guess. ${SOLUTION}\nLet me double-check the ${"eggs and the money she makes ".repeat(20)}and`, responseTokens: 4096 }, context: { maxResponseTokens: 4096 } },
      ],
      noMatch: [
        { name: "stopped early", rollout: { response: `${SOLUTION}\nA: 18`, finishReason: "stop", responseTokens: 120 }, context: { maxResponseTokens: 4096 } },
        { name: "the data says it stopped, whatever the recipe's limit", rollout: { response: `${SOLUTION}\nA: 18`, finishReason: "stop", responseTokens: 4096 }, context: { maxResponseTokens: 1024 } },
        { name: "no finish reason, all tokens used, ends with a boxed answer", rollout: { response: `${SOLUTION}\nSo the answer is $\\boxed{18}$`, responseTokens: 4096 }, context: { maxResponseTokens: 4096 } },
        { name: "no finish reason, all tokens used, ends with a finished sentence", rollout: { response: `${SOLUTION}\nShe makes eighteen dollars.`, responseTokens: 4096 }, context: { maxResponseTokens: 4096 } },
      ],
    },
  },
  {
    id: "math.format_error",
    label: "format_error",
    // v2: a response that is only a number is its own answer (a prompt ending in "Answer:"), no longer a format error.
    version: 2,
    domains: ["math"],
    description: "A non-empty response that commits to no final answer (no \\boxed{}, '#### n', 'A: n' or 'the answer is n', and not only a number).",
    when: String.raw`response.matches(r'\S') && final_answer(response) == ''`,
    evidence: "{'tail': tail(response, 160)}",
    cases: {
      match: [
        { name: "no final answer", rollout: { response: SOLUTION } },
        { name: "empty box", rollout: { response: `${SOLUTION}\n\\boxed{}` } },
      ],
      noMatch: [
        { name: "boxed", rollout: { response: `${SOLUTION}\nSo the answer is \\boxed{18}.` } },
        { name: "gsm8k reference style", rollout: { response: `${SOLUTION}\n#### 18` } },
        { name: "A: line", rollout: { response: `${SOLUTION}\nA: 18` } },
        { name: "said in words", rollout: { response: `${SOLUTION} The answer is 18.` } },
        { name: "empty response is its own label", rollout: { response: "" } },
      ],
    },
  },
  {
    id: "math.repetition_loop",
    label: "repetition_loop",
    version: 2,
    domains: ["math"],
    description: "The response loops: one short unit repeats over 64+ characters, or most of its word 4-grams repeat (numbers collapsed): 60% and more, or half when the text never reaches a final answer. A step-by-step enumeration that moves on and answers (day 1, day 2, … A: 28) repeats about half its 4-grams and is not a loop.",
    when: "repeat_run(response) >= 64 || ngram_repeat_ratio(response, 4) >= 0.6 || (ngram_repeat_ratio(response, 4) >= 0.5 && final_answer(response) == '')",
    evidence: "{'ngram_repeat_ratio': ngram_repeat_ratio(response, 4), 'repeat_run': repeat_run(response), 'tail': tail(response, 160)}",
    cases: {
      match: [
        { name: "counting loop", rollout: { response: LOOP } },
        { name: "digit loop", rollout: { response: `Each friend gets 20/11 = 1.${"81".repeat(60)}` } },
        { name: "verbatim sentence loop", rollout: { response: "Let me check again. The sum is 12. ".repeat(12) } },
      ],
      noMatch: [
        { name: "ordinary solution", rollout: { response: `${SOLUTION}\nA: 18` } },
        { name: "repeating decimal", rollout: { response: "Each gets 10/3 = 3.3333333333333335 apples, so about 3 each.\nA: 3" } },
        {
          name: "an enumeration that moves on and answers",
          rollout: { response: `${LOOP}\nAfter those days it has 90 leaves.\nA: 90` },
        },
      ],
    },
  },
  {
    id: "math.wrong_answer",
    label: "wrong_answer",
    version: 2,
    domains: ["math"],
    description: "The final answer differs from the ground truth's (numerically when both are numbers; 10\\% and 10% are the number 10); a missing answer is wrong.",
    when: "ground_truth != '' && !answer_equals(final_answer(response), final_answer(ground_truth) != '' ? final_answer(ground_truth) : ground_truth)",
    evidence: "{'answer': final_answer(response), 'expected': final_answer(ground_truth) != '' ? final_answer(ground_truth) : ground_truth}",
    cases: {
      match: [
        { name: "different number", rollout: { response: "13 * 2 = 26\nA: 26", groundTruth: "18" } },
        { name: "no answer at all", rollout: { response: SOLUTION, groundTruth: "18" } },
        { name: "against a worked reference", rollout: { response: "\\boxed{17}", groundTruth: `${SOLUTION}\n#### 18` } },
      ],
      noMatch: [
        { name: "boxed equal", rollout: { response: "\\boxed{18}", groundTruth: "18" } },
        { name: "thousands separator and dollars", rollout: { response: "A: $1,000", groundTruth: "1000" } },
        { name: "decimal form", rollout: { response: "#### 18.0", groundTruth: `${SOLUTION}\nA: 18` } },
        { name: "fraction", rollout: { response: "\\boxed{\\frac{1}{2}}", groundTruth: "0.5" } },
        { name: "a percent against its number", rollout: { response: "The discount is \\boxed{10\\%}.", groundTruth: "10" } },
        { name: "no ground truth", rollout: { response: "A: 3" } },
      ],
    },
  },
  {
    id: "math.empty_response",
    label: "empty_response",
    version: 1,
    domains: ["math"],
    description: "Nothing but whitespace was generated.",
    when: String.raw`!response.matches(r'\S') && size(tool_calls) == 0`,
    cases: {
      match: [
        { name: "empty", rollout: { response: "" } },
        { name: "whitespace", rollout: { response: "  \n\t " } },
      ],
      noMatch: [{ name: "any text", rollout: { response: "18" } }],
    },
  },
  {
    id: "math.language_mix",
    label: "language_mix",
    version: 1,
    domains: ["math"],
    description: "At least 5% of the letters are in a script other than the response's dominant one (e.g. English drifting into Chinese).",
    when: "script_mix(response) >= 0.05",
    evidence: "{'script_mix': script_mix(response)}",
    cases: {
      match: [
        { name: "english drifting into chinese", rollout: { response: "First compute 3 + 4 = 7. 然后我们把它乘以二得到十四。 A: 14" } },
        { name: "cyrillic words", rollout: { response: "We add the numbers, итого получаем сумму. A: 5" } },
      ],
      noMatch: [
        { name: "english", rollout: { response: `${SOLUTION}\nA: 18` } },
        { name: "chinese only", rollout: { response: "所以答案是十四。" } },
        { name: "one greek letter in math", rollout: { response: "The area of the circle is π r^2 = 3.14 * 4 = 12.56 square units.\nA: 12.56" } },
      ],
    },
  },
  {
    id: "math.tool_error",
    label: "tool_error",
    version: 1,
    domains: ["math"],
    description: "A tool the model called (a Python interpreter, a calculator) failed: a traceback or a Python error in its output.",
    when: `tool_results.exists(r, r.error || r.content.matches(r'${PY_ERROR}'))`,
    evidence: `{'errors': tool_results.filter(r, r.error || r.content.matches(r'${PY_ERROR}')).map(r, r.name + ': ' + tail(r.content, 160))}`,
    cases: {
      match: [
        {
          name: "traceback from the interpreter",
          rollout: { trajectory: [{ role: "user", content: "2+2?" }, { role: "assistant", content: "", toolCalls: [{ name: "python", arguments: { code: "print(2+x)" } }] }, { role: "tool", toolName: "python", content: "Traceback (most recent call last):\n  File \"<stdin>\", line 1\nNameError: name 'x' is not defined" }, { role: "assistant", content: "A: 4" }] },
        },
      ],
      noMatch: [
        {
          name: "tool ran",
          rollout: { trajectory: [{ role: "user", content: "2+2?" }, { role: "assistant", content: "", toolCalls: [{ name: "python", arguments: { code: "print(2+2)" } }] }, { role: "tool", toolName: "python", content: "4" }, { role: "assistant", content: "A: 4" }] },
        },
        { name: "no tools", rollout: { response: `${SOLUTION}\nA: 18` } },
      ],
    },
  },
];
