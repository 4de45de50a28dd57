import { describe, expect, it } from "vitest";
import { loadGsm8k } from "../__fixtures__/real-data.ts";
import { answersEqual, finalAnswer } from "./final-answer.ts";

/** The definition finalAnswer reads lines from the end to meet: the last match of each form over the whole text. */
function byFullScan(text: string): string {
  const at = text.lastIndexOf("\\boxed{");
  if (at >= 0) {
    let depth = 0;
    for (let i = at + 7; i < text.length; i++) {
      if (text[i] === "{") depth++;
      else if (text[i] === "}" && depth-- === 0) return text.slice(at + 7, i).trim();
    }
  }
  for (const re of [/^[ \t]*####[ \t]*(.+)$/gm, /^[ \t]*(?:A|Answer|Final Answer)[ \t]*:[ \t]*(.+)$/gim]) {
    let last: string | undefined;
    for (const m of text.matchAll(re)) last = m[1];
    if (last !== undefined && last.trim() !== "") return last.trim();
  }
  let said: string | undefined;
  for (const m of text.matchAll(/answer is[ \t:]*\$?([^\s$][^\n]*?)\$?[ \t]*(?:\.(?:\s|$)|\n|$)/gi)) said = m[1];
  if (said !== undefined) return said.trim();
  return /^\s*(-?\d[\d,]*(?:\.\d+)?(?:\/\d+)?)\.?\s*$/.exec(text)?.[1] ?? "";
}

describe("finalAnswer", () => {
  it("reads the same answer as a full scan of every form, on GSM8K and on lines built to mislead", () => {
    const texts = loadGsm8k().flatMap((r) => [r.rollout.response ?? "", typeof r.rollout.groundTruth === "string" ? r.rollout.groundTruth : ""]);
    const tricky = [
      "A: 3\nnote: none", "A: 3\nAnswer:   \n", "#### 5\nthen #### x", "x #### 5\n#### 6 ok", "Answer: 4\rRatio: 2", "A: 1\u2028B: 2", "final answer: 9\nA:", "A:\u2029",
      "Step 1: add\nStep 2: carry\nA: 12", " 21", "21.\n", "1,000", "3/4", "x 21", "21 apples", "####\n#### 7", "answer: 5 and the answer is 6", "Answer :7\nps: x:y", "\\boxed{1} A: 2", "a: 5\nA: \t",
    ];
    for (const t of [...texts, ...tricky]) expect(finalAnswer(t), JSON.stringify(t.slice(-80))).toBe(byFullScan(t));
    expect(texts.length).toBeGreaterThan(500);
  });

  it("takes a response that is only a number as its answer: the completion of a prompt ending in \"Answer:\"", () => {
    expect(finalAnswer(" 21")).toBe("21");
    expect(finalAnswer(" -3.5.")).toBe("-3.5");
    expect(finalAnswer("21 apples")).toBe("");
    expect(finalAnswer("I think 21")).toBe("");
  });
});

describe("answersEqual", () => {
  it("compares a percent as its number, escaped or not, as standard math graders do", () => {
    expect(answersEqual(finalAnswer("So the rate is \\boxed{10\\%}."), "10")).toBe(true);
    expect(answersEqual("10%", "10")).toBe(true);
    expect(answersEqual("10 \\%", "10")).toBe(true);
    expect(answersEqual("\\text{10\\%}", "10")).toBe(true);
    expect(answersEqual("12.5\\%", "12.5")).toBe(true);
    expect(answersEqual("1,000\\%", "1000")).toBe(true);
    expect(answersEqual("10\\%", "10%")).toBe(true);
    expect(answersEqual("10\\%", "11")).toBe(false);
    expect(answersEqual("10\\%", "0.1")).toBe(false);
  });
});
