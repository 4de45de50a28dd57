import { describe, expect, it } from "vitest";
import { hasNonSpace, literalPlan, literalVerdict } from "./literal-prefilter.ts";
import { re2Test } from "./regex.ts";

describe("literal prefilter", () => {
  it("plans only what every match of an alternative must contain", () => {
    expect(literalPlan(String.raw`input\s*\(|stdin|argv`)).toEqual({ required: ["input", "stdin", "argv"], whole: ["stdin", "argv"], exact: [], fold: false });
    expect(literalPlan("ab+c")).toEqual({ required: ["ab"], whole: [], exact: [], fold: false });
    expect(literalPlan("colou?r")).toEqual({ required: ["colo"], whole: [], exact: [], fold: false });
    expect(literalPlan("(?i)Wrong Answer|^WA$")).toEqual({ required: ["wrong answer"], whole: ["wrong answer"], exact: ["wa"], fold: true });
    expect(literalPlan("(?im)wrong|^wa$")).toEqual({ required: ["wrong", "wa"], whole: ["wrong"], exact: [], fold: true });
    expect(literalPlan("x|yz")).toBeUndefined();
    expect(literalPlan(String.raw`(?m)(: command not found|Traceback \(most|^\s*File "x)`)).toEqual({ required: [": command not found", "Traceback (most", 'File "x'], whole: [": command not found", "Traceback (most"], exact: [], fold: false });
    expect(literalPlan("(ab)+c")).toBeUndefined();
    expect(literalPlan("(?m)(?i)abc")).toBeUndefined();
  });

  it("never contradicts RE2 where it gives a verdict", () => {
    const patterns = [
      "(?i)wrong answer|^wa$", "(?i)time limit|timeout|timed out|^tle$", String.raw`(?i)compil|syntax|indentationerror`, "(?i)mask|ask", String.raw`(?im)^re$|runtime error`, "(?s)^ab$|cd",
      String.raw`input\s*\(|stdin|argv|open\s*\(`, String.raw`print\s*\(`, "ab+c", "colou?r", String.raw`a\.b|^foo$`, "x{2}yz", String.raw`git\s+(log\s+--all|reflog)`, String.raw`(?m)(^foo$|a\.b|: not found$)`, String.raw`(?:input\s*\(|stdin)`];
    const texts = ["", "stdin", "print (1)", "print", "abbbc", "ac", "color", "colour", "a.b", "axb", "foo", "xxfoo", "xxyz", "xyz", "git reflog", "git  log --all", "input(", "open (", "x\nfoo\ny", "sh: x: not found", "sh: x: not found\nmore", "foo bar",
      "Wrong Answer", "WA", "wa\n", "wa", " WA", "Time Limit Exceeded", "TLE", "SyntaxError", "MAſK", "\u212Aey", "x\nRE\ny", "re", "İnput", "ab", "ab\n", "CD", "cd"];
    let settled = 0;
    for (const p of patterns) {
      const plan = literalPlan(p)!;
      expect(plan, p).toBeDefined();
      for (const t of texts) {
        const v = literalVerdict(plan, t);
        if (v === undefined) continue;
        settled++;
        expect(v, `${p} on ${t}`).toBe(re2Test(t, p));
      }
    }
    expect(settled).toBeGreaterThan(50);
  });

  it("answers \\S as RE2 does, whose whitespace is narrower than JavaScript's", () => {
    for (const t of ["", " ", "\t\n\f\r ", "\v", "\u00a0", "\u3000", " x", "\n\n1"]) expect(hasNonSpace(t), JSON.stringify(t)).toBe(re2Test(t, String.raw`\S`));
  });
});
