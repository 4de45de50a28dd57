import { finalAnswer } from "../text/final-answer.ts";

/**
 * Classes of a math final answer's form, first match wins. The patterns are RE2 and JS alike, so
 * a detector drafted from a class (`final_answer(response).matches(...)`) reads the answer as the
 * classifier did.
 */
export const ANSWER_KINDS: readonly { kind: string; pattern: string }[] = [
  { kind: "integer", pattern: String.raw`^[-+]?\d+$` },
  { kind: "integer with separators", pattern: String.raw`^[-+]?\d{1,3}(,\d{3})+$` },
  { kind: "decimal", pattern: String.raw`^[-+]?\d*\.\d+$` },
  { kind: "percent", pattern: String.raw`%$` },
  { kind: "fraction", pattern: String.raw`^[-+]?(\d+/\d+|\\d?frac\{.*\}\{.*\})$` },
  { kind: "with units or currency", pattern: String.raw`^[$€£]|\d\s*[A-Za-z]+\.?$` },
  { kind: "non-numeric", pattern: String.raw`^[^0-9]*$` },
];

export type AnswerWhere = "boxed" | "marked line" | "sentence";

export interface AnswerFormat {
  /** "no answer" when the response commits to none. */
  kind: string;
  /** Where the answer was found: a \boxed{}, a "####" / "Answer:" line, or "the answer is …". */
  where: AnswerWhere | null;
}

/** The form of a math response's final answer: what it committed to and how it wrote it. */
export function answerFormat(response: string): AnswerFormat {
  const answer = finalAnswer(response);
  if (answer === "") return { kind: "no answer", where: null };
  const where: AnswerWhere = response.includes("\\boxed") ? "boxed" : /^[ \t]*(####|A:|Answer:|Final Answer:)/im.test(response) ? "marked line" : "sentence";
  const kind = ANSWER_KINDS.find((k) => new RegExp(k.pattern).test(answer))?.kind ?? "expression";
  return { kind, where };
}
